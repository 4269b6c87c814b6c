#pragma once
// compute_control: one large GEMM C = A B through the engine's KokkosBlas route, raw KokkosBlas,
// OpenBLAS cblas_?gemm and NumPy. Its OpenBLAS GFLOP/s is the machine ceiling compute-bound rows
// are reported against.

#include "tfbench/workloads/family.hpp"

#include <vector>

namespace tfbench::workloads {

const Family& compute_control_family();

/// GFLOP/s of each of `samples` timed OpenBLAS ?gemm calls (n x n x n, after a warm-up) at `threads`:
/// the peaks of a worker's ceilings, measured by the same code as peer:openblas.
std::vector<double> sample_gemm_gflops(int n, int threads, int samples, FlopPrecision precision);

}  // namespace tfbench::workloads
