#pragma once
// ad: forward and forward+backward passes of eager reverse-mode AD over contraction chains and
// solves; the engine's tape against the same gradients written by hand with BLAS/LAPACK.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& ad_family();

}  // namespace tfbench::workloads
