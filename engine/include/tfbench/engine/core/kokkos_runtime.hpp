#pragma once
// The one Kokkos start-up of every tfbench executable: a scope guard that owns
// Kokkos::initialize/finalize. It hides the API difference between Kokkos 3.4
// (Kokkos::InitArguments) and Kokkos 4.x (Kokkos::InitializationSettings).

#include "tfbench/engine/core/exec_space.hpp"

#include <string>

namespace tfbench {

struct KokkosStartOptions {
  /// Host threads of the OpenMP space; unset (< 1) leaves the choice to Kokkos (OMP_NUM_THREADS).
  int num_threads = -1;
  /// CUDA device; unset (< 0) leaves the choice to Kokkos.
  int device_id = -1;
  /// Kokkos' start-up warnings (OMP_PROC_BIND unset, ...): tfbench sets its binding itself.
  bool disable_warnings = true;
};

/// Initializes Kokkos on construction and finalizes it on destruction. One per process, on the
/// thread that owns the process's main; neither copyable nor movable.
class KokkosRuntime {
 public:
  explicit KokkosRuntime(const KokkosStartOptions& options = {});
  ~KokkosRuntime();
  KokkosRuntime(const KokkosRuntime&) = delete;
  KokkosRuntime& operator=(const KokkosRuntime&) = delete;
  KokkosRuntime(KokkosRuntime&&) = delete;
  KokkosRuntime& operator=(KokkosRuntime&&) = delete;
};

/// The accelerator a device space runs on, as its runtime names it, for provenance: "NVIDIA H100
/// 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, PCI 0000:1b:00, driver 13.0, runtime 13.0)"; empty for a
/// host space. Kokkos must be running.
std::string device_description(ExecSpaceKind kind);

}  // namespace tfbench
