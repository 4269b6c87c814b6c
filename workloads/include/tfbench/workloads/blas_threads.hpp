#pragma once
// The BLAS library's thread count, read and set here only: the worker sets it for its threads before
// it measures, and per-item peers scope it to one (common/blas_threads.hpp).

namespace tfbench::workloads {

/// The BLAS library's current thread count.
int blas_threads();
/// Asks the BLAS library for `threads` threads and returns the count it reports afterwards.
int set_blas_threads(int threads);

}  // namespace tfbench::workloads
