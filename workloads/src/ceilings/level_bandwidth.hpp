#pragma once
// The bandwidth of one memory level: a STREAM triad a = b + s*c whose three arrays together hold
// `working_set_bytes`, split over `threads` OpenMP threads by the same static schedule that first
// touched them, repeated inside one parallel region so that a cache-sized pass (a few hundred
// nanoseconds in L1) is not drowned by the fork and join of a region per pass.

#include <omp.h>

#include <chrono>
#include <functional>
#include <vector>

#include "tfbench/workloads/ceilings.hpp"

namespace tfbench::workloads::impl {

/// Seconds from a barrier before to a barrier after `work`, run by every thread of one parallel
/// region of `threads` threads: waking the threads (milliseconds when another process holds the
/// CPUs, e.g. OpenBLAS's threads still spinning after a GEMM) is not measured.
template <class Work>
double time_between_barriers(int threads, Work&& work) {
  std::chrono::steady_clock::time_point t0, t1;
#pragma omp parallel num_threads(threads)
  {
#pragma omp barrier
#pragma omp master
    t0 = std::chrono::steady_clock::now();
    work();
#pragma omp barrier
#pragma omp master
    t1 = std::chrono::steady_clock::now();
  }
  return std::chrono::duration<double>(t1 - t0).count();
}

/// Passes per sample: enough for `min_sample_s` at the fastest warm-up pass. The fastest, because one
/// warm-up slowed by a descheduled thread (milliseconds, against a microsecond for an L1 pass) made
/// every sample a single pass, and each such pass then read as that stall: 0.006 GB/s for L1.
long long passes_for_sample(const std::vector<double>& warmup_pass_s, double min_sample_s);

/// GB/s (STREAM's count: 24 bytes per element) of each of `samples` samples; a sample repeats the
/// pass until it has run for at least `min_sample_s`.
std::vector<double> sample_triad_bandwidth(double working_set_bytes, int threads, int samples,
                                           double min_sample_s);

/// Runs `measure` again while its median sample is more than `retry_spread` below its best, up to
/// `attempts` in all, and keeps the attempt with the highest median.
Ceiling measure_with_retries(const std::function<Ceiling()>& measure, double retry_spread, int attempts);

}  // namespace tfbench::workloads::impl
