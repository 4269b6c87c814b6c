#pragma once
// Runs f(thread) in an OpenMP parallel region started by the test itself. The body reads its task
// through an atomic (not OpenMP's shared-data block), a hand-off ThreadSanitizer sees itself, with or
// without a tool reporting the runtime's own (the tsan preset loads LLVM's Archer).

#include <omp.h>

#include <atomic>
#include <functional>

namespace tfbench::testing {

inline std::atomic<const std::function<void(int)>*>& region_task() {
  static std::atomic<const std::function<void(int)>*> task{nullptr};
  return task;
}

inline std::atomic<int>& region_done() {
  static std::atomic<int> done{0};
  return done;
}

inline void region_body() {
  const auto* task = region_task().load(std::memory_order_acquire);
  (*task)(omp_get_thread_num());
  region_done().fetch_add(1, std::memory_order_acq_rel);
}

/// Runs f(omp_get_thread_num()) on a team of `threads`; returns the team size that ran.
inline int run_omp_region(int threads, const std::function<void(int)>& f) {
  region_done().store(0, std::memory_order_relaxed);
  region_task().store(&f, std::memory_order_release);
#pragma omp parallel num_threads(threads)
  { region_body(); }
  return region_done().load(std::memory_order_acquire);
}

}  // namespace tfbench::testing
