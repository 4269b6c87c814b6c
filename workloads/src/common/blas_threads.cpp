#include "common/blas_threads.hpp"

#include <cblas.h>

namespace tfbench::workloads {

int blas_threads() {
  return openblas_get_num_threads();
}

int set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
  return openblas_get_num_threads();
}

ScopedBlasThreads::ScopedBlasThreads(int threads) : previous_(blas_threads()) {
  if (previous_ != threads) openblas_set_num_threads(threads);
  verified_ = blas_threads();
}

ScopedBlasThreads::~ScopedBlasThreads() {
  if (blas_threads() != previous_) openblas_set_num_threads(previous_);
}

}  // namespace tfbench::workloads
