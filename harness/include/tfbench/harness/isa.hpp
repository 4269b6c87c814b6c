#pragma once
// The instruction sets of this build and of the host it runs on (docs/cli.md, "Instruction set").
// Lists are comma-separated extension names as __builtin_cpu_supports spells them ("avx2,fma").

#include <string>

namespace tfbench::harness {

struct RunInfo;

struct IsaInfo {
  std::string build_arch;      // TFBENCH_ARCH as built: "native (cooperlake)", "x86-64-v3", "none"
  std::string build_host_cpu;  // the build host's CPU model
  std::string required;        // extensions the compiled code may use (its -march)
  std::string build_host;      // the build host's extensions ("unknown": not resolved)
  std::string run_host;        // this host's extensions
  std::string missing;         // required ones this host lacks ("": none)
};

IsaInfo isa_info();

/// Writes the build's and this host's instruction sets into a run's provenance.
void record_isa(RunInfo& info);

}  // namespace tfbench::harness
