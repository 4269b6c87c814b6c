#pragma once
// compute_control: one large GEMM C = A B through the engine's KokkosBlas route, raw KokkosBlas,
// OpenBLAS cblas_?gemm and NumPy. Its OpenBLAS GFLOP/s is the machine ceiling compute-bound rows
// are reported against.

#include "tfbench/workloads/family.hpp"

#include <vector>

namespace tfbench::workloads {

const Family& compute_control_family();

/// GFLOP/s of OpenBLAS dgemm (n x n x n) at `threads` BLAS threads, best of `repetitions` after a
/// warm-up: the compute ceiling of a worker, measured by the same code as peer:openblas.
double measure_dgemm_gflops(int n, int threads, int repetitions);
/// GFLOP/s of each of `samples` timed OpenBLAS ?gemm calls (n x n x n, after a warm-up) at `threads`.
std::vector<double> sample_gemm_gflops(int n, int threads, int samples, FlopPrecision precision);

}  // namespace tfbench::workloads
