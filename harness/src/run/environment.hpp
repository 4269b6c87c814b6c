#pragma once
// The environment a worker starts in. libgomp pins the main thread at program start when
// OMP_PROC_BIND or OMP_PLACES is set; a pinned parent would hand its one-CPU mask to every worker,
// and the pthread OpenBLAS then runs one thread whatever it is asked. So the parent undoes that
// pinning, and workers get OMP_PROC_BIND/OMP_PLACES removed unless the user forces them.

#include <optional>
#include <string>
#include <vector>

namespace tfbench::harness::impl {

struct AffinityRestore {
  int before = 0;  // CPUs in the mask at entry
  int after = 0;   // CPUs in the mask on return
};

/// Widens this thread's affinity mask to the union of the OpenMP places when libgomp narrowed it
/// at start (the union is the mask the process started with, or the user's OMP_PLACES).
AffinityRestore undo_startup_pinning();

struct WorkerEnvironmentOptions {
  int threads = 1;
  std::optional<std::string> omp_proc_bind;  // forced value (--omp-proc-bind), else removed
  std::optional<std::string> omp_places;     // forced value (--omp-places), else removed
};

/// This process's environment with the thread variables set for one worker: OMP_NUM_THREADS and
/// OPENBLAS_NUM_THREADS = threads; OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY, KMP_AFFINITY and
/// KOKKOS_NUM_THREADS removed unless forced.
std::vector<std::string> worker_environment(const WorkerEnvironmentOptions& options);

/// The variable's value, or "" when unset.
std::string environment_value(const char* name);

}  // namespace tfbench::harness::impl
