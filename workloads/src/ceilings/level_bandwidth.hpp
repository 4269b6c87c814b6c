#pragma once
// The bandwidth of one memory level: the higher of two kernels over a working set of
// `working_set_bytes`, split over `threads` OpenMP threads by the same static schedule that first
// touched it, repeated inside one parallel region so that a cache-sized pass (a few hundred
// nanoseconds in L1) is not drowned by the fork and join of a region per pass:
// - the STREAM triad a = b + s*c over three arrays (24 bytes per element, STREAM's count), the
//   fastest in L1;
// - the Empirical Roofline Toolkit's in-place kernel a = s*a + t over one array (16 bytes per
//   element: a load and a store of the same line). Beyond the L2 the triad's count is not what
//   moves: each store first reads its line (write-allocate, 8 uncounted bytes per element), and
//   three streams share the prefetchers. On the Xeon (Emerald Rapids) the in-place kernel read 1.6x
//   the triad at 420 MiB and 1.8x at 10 MiB, and rows whose stores bypass the caches ran at
//   1.2-1.29 of a triad DRAM ceiling.

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/buffer.hpp"
#include "tfbench/workloads/ceilings.hpp"

namespace tfbench::workloads::impl {

/// Samples per ceiling, and how long a cache-level sample repeats its passes: what a run measures,
/// and what the probe's --bandwidth prints beside it.
constexpr int kCeilingSamples = 5;
constexpr double kCacheSampleSeconds = 0.005;

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

enum class BandwidthKernel { Triad, InPlace };

/// One kernel's arrays over a working set, first touched and filled by the threads that stream
/// them: what a ceiling samples, and what a row's bandwidth_reference times again beside it.
class BandwidthPasses {
 public:
  BandwidthPasses(BandwidthKernel kernel, double working_set_bytes, int threads);
  /// The kernel's count per pass: 24 bytes per element for the triad, 16 for the in-place kernel.
  double bytes_per_pass() const;
  /// Seconds for `passes` passes in one parallel region, between barriers.
  double time(std::int64_t passes);
  /// GB/s (the kernel's count) of one sample of `passes` passes.
  double sample_gbs(std::int64_t passes) {
    return bytes_per_pass() * static_cast<double>(passes) / time(passes) / 1e9;
  }
  /// Passes per sample of at least `min_sample_s`, from warm-up passes (passes_for_sample).
  std::int64_t passes_for(double min_sample_s);

 private:
  BandwidthKernel kernel_;
  int threads_;
  std::int64_t n_ = 0;
  AlignedBuffer<double> a_, b_, c_;
};

/// GB/s (the kernel's count of bytes per element) of each of `samples` samples; a sample repeats the
/// pass until it has run for at least `min_sample_s`.
std::vector<double> sample_bandwidth(BandwidthKernel kernel, double working_set_bytes, int threads,
                                     int samples, double min_sample_s);

/// A level's ceiling: `measure(kernel)` for each kernel, the one with the higher best.
Ceiling higher_of_kernels(const std::function<Ceiling(BandwidthKernel)>& measure);

/// Runs `measure` again while its median sample is more than `retry_spread` below its best, up to
/// `attempts` in all, and keeps the attempt with the highest median.
Ceiling measure_with_retries(const std::function<Ceiling()>& measure, double retry_spread, int attempts);

}  // namespace tfbench::workloads::impl
