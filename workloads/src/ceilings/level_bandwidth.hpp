#pragma once
// The bandwidth of one memory level: a STREAM triad a = b + s*c whose three arrays together hold
// `working_set_bytes`, split over `threads` OpenMP threads by the same static schedule that first
// touched them, repeated inside one parallel region so that a cache-sized pass (a few hundred
// nanoseconds in L1) is not drowned by the fork and join of a region per pass.

#include <vector>

namespace tfbench::workloads::impl {

/// GB/s (STREAM's count: 24 bytes per element) of each of `samples` samples; a sample repeats the
/// pass until it has run for at least `min_sample_s`.
std::vector<double> sample_triad_bandwidth(double working_set_bytes, int threads, int samples,
                                           double min_sample_s);

}  // namespace tfbench::workloads::impl
