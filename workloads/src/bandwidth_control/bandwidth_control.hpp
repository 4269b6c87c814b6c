#pragma once
// bandwidth_control: the STREAM triad a = b + s*c, as a Kokkos kernel on the worker's execution
// space and as a hand-written OpenMP loop (and CUDA kernel), the variants of a case on the same
// arrays: the Kokkos triad against the hand-written one.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& bandwidth_control_family();

}  // namespace tfbench::workloads
