#pragma once
// batched_solve: batched LU + solve (n = 2..32, one or several right-hand sides) through the
// engine's batched_solve under each batch strategy, beside a LAPACK getrf/getrs loop, raw
// KokkosBatched SerialLU + SerialSolveLU and NumPy.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& batched_solve_family();

}  // namespace tfbench::workloads
