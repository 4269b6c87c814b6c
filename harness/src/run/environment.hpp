#pragma once
// The environment a worker starts in. libgomp pins the main thread at program start when
// OMP_PROC_BIND or OMP_PLACES is set; a pinned parent would hand its one-CPU mask to every worker,
// and the pthread OpenBLAS then runs one thread whatever it is asked. So the parent undoes that
// pinning, and workers get OMP_PROC_BIND/OMP_PLACES removed unless the user forces them.
// Workers then pin their own threads once started (pin_worker_threads), after the BLAS threads exist.

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
  bool pin = true;                           // false: TFBENCH_PIN=0, the worker leaves threads unpinned
  std::string tuning_file;                   // TFBENCH_TUNING_FILE for the worker to install (empty: removed)
};

/// This process's environment with the thread variables set for one worker: OMP_NUM_THREADS and
/// OPENBLAS_NUM_THREADS = threads; OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY, KMP_AFFINITY and
/// KOKKOS_NUM_THREADS removed unless forced; TFBENCH_PIN=1 or 0.
std::vector<std::string> worker_environment(const WorkerEnvironmentOptions& options);

/// A worker's TFBENCH_PIN: false only when it is "0".
bool pinning_requested();

/// How a worker's threads are bound, as read back from each thread after pinning.
struct ThreadBinding {
  /// "off", or "<places> omp:<cpus>,<cpus>,... others:<cpus>,...": the affinity mask of OpenMP
  /// thread 0, 1, ... and of every other thread of the process (OpenBLAS's server threads), CPUs of
  /// one place joined by '+'; places are "cores" (one physical core, its hardware threads in the
  /// mask) or "threads" (single CPUs, when there are fewer cores than threads).
  std::string text = "off";
  std::vector<std::string> problems;  // what the read-back contradicts
};

/// Pins OpenMP thread i of a `threads`-wide team to place i of this thread's current affinity mask
/// and the other threads of the process round-robin from place 1 (OpenBLAS runs its thread 0 on the
/// caller, OpenMP thread 0), then reads every mask back, and sched_getcpu inside each OpenMP
/// thread. Call once Kokkos and the BLAS run their thread counts: threads created later inherit
/// their creator's one-place mask.
ThreadBinding pin_worker_threads(int threads);

/// The variable's value, or "" when unset.
std::string environment_value(const char* name);

}  // namespace tfbench::harness::impl
