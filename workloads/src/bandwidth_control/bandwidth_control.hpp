#pragma once
// bandwidth_control: the STREAM triad a = b + s*c, as a Kokkos kernel on the worker's execution
// space and as a hand-written OpenMP loop. Its GB/s is the machine ceiling bandwidth-bound rows are
// reported against.

#include "tfbench/workloads/family.hpp"

#include <cstdint>

namespace tfbench::workloads {

const Family& bandwidth_control_family();

/// GB/s of the hand-written OpenMP triad over `elements` doubles per array at `threads` threads
/// (best of `repetitions`); the bandwidth ceiling of a worker.
double measure_triad_gbs(std::int64_t elements, int threads, int repetitions);

}  // namespace tfbench::workloads
