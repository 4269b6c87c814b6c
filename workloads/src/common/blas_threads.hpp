#pragma once
// Sets the BLAS library's thread count for a scope and restores it: per-item peers call BLAS with
// one thread inside their own fan-out (a threaded BLAS under fan-out oversubscribes and contends).

#include "tfbench/workloads/blas_threads.hpp"

namespace tfbench::workloads {

class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;
  /// The count the library reported after the request.
  int verified() const { return verified_; }

 private:
  int previous_;
  int verified_;
};

}  // namespace tfbench::workloads
