#pragma once
// packed_small: batched small GEMM (n = 2..32) under every batch strategy of the engine, beside raw
// KokkosBatched, an OpenBLAS per-item loop, libxsmm, Eigen fixed-size matrices and NumPy.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& packed_small_family();

}  // namespace tfbench::workloads
