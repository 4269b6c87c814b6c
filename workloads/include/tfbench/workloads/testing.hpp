#pragma once
// Test-only hooks of the workload families. Nothing in a measurement run arms them.

namespace tfbench::workloads::testing {

/// While an instance of this guard lives, every family's check() perturbs one element of the
/// output it compares (after the variant produced it, before the comparison), so a test can prove
/// that each check rejects a wrong result. Process-wide; not for concurrent tests.
class ScopedOutputFault {
 public:
  ScopedOutputFault();
  ~ScopedOutputFault();
  ScopedOutputFault(const ScopedOutputFault&) = delete;
  ScopedOutputFault& operator=(const ScopedOutputFault&) = delete;
};

/// True while a ScopedOutputFault lives.
bool output_fault_armed();

}  // namespace tfbench::workloads::testing
