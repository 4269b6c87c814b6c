#include "ceilings/level_bandwidth.hpp"

#include "common/buffer.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace tfbench::workloads::impl {
namespace {

/// The calling OpenMP thread's static share [begin, end) of [0, n).
std::pair<std::int64_t, std::int64_t> share_of_thread(std::int64_t n) {
  const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
  return {n * t / threads, n * (t + 1) / threads};
}

constexpr int kWarmupPasses = 3;

/// Runs `passes` triad passes over the calling thread's share of [0, n).
void triad_passes(double* __restrict a, const double* __restrict b, const double* __restrict c,
                  std::int64_t n, std::int64_t passes) {
  const auto [begin, end] = share_of_thread(n);
  for (std::int64_t p = 0; p < passes; ++p) {
    for (std::int64_t i = begin; i < end; ++i) a[i] = b[i] + 3.0 * c[i];
    // Each pass must really load and store: without this the compiler may keep only the last one.
    asm volatile("" ::: "memory");
  }
}

/// Runs `passes` in-place passes a = s*a + t over the calling thread's share of [0, n). The values
/// stay finite and normal: s < 1 pulls them towards t / (1 - s) = 1.
void in_place_passes(double* __restrict a, std::int64_t n, std::int64_t passes) {
  const auto [begin, end] = share_of_thread(n);
  for (std::int64_t p = 0; p < passes; ++p) {
    for (std::int64_t i = begin; i < end; ++i) a[i] = 0.5 * a[i] + 0.5;
    asm volatile("" ::: "memory");
  }
}

}  // namespace

long long passes_for_sample(const std::vector<double>& warmup_pass_s, double min_sample_s) {
  double fastest = std::numeric_limits<double>::infinity();
  for (double s : warmup_pass_s)
    if (s > 0) fastest = std::min(fastest, s);
  if (!std::isfinite(fastest)) return 1;
  return static_cast<long long>(std::max(1.0, std::ceil(min_sample_s / std::max(fastest, 1e-9))));
}

BandwidthPasses::BandwidthPasses(BandwidthKernel kernel, double working_set_bytes, int threads)
    : kernel_(kernel), threads_(threads) {
  const int arrays = kernel == BandwidthKernel::Triad ? 3 : 1;
  n_ = std::max<std::int64_t>(std::int64_t{64} * threads,
                              static_cast<std::int64_t>(working_set_bytes / (arrays * sizeof(double))));
  const auto count = static_cast<std::size_t>(n_);
  const std::int64_t n = n_;
  // Zeroed (first touch) by `threads` threads, then filled by the share each one streams; on huge
  // pages at staggered offsets, as the packed_small operands (AlignedBuffer's placed constructor).
  a_ = AlignedBuffer<double>(count, threads, operand_page_offset(0));
  double* pa = a_.data();
  if (kernel == BandwidthKernel::InPlace) {
#pragma omp parallel num_threads(threads)
    {
      const auto [begin, end] = share_of_thread(n);
      for (std::int64_t i = begin; i < end; ++i) pa[i] = 1.0 + static_cast<double>(i % 7);
    }
    return;
  }
  b_ = AlignedBuffer<double>(count, threads, operand_page_offset(1));
  c_ = AlignedBuffer<double>(count, threads, operand_page_offset(2));
  double *pb = b_.data(), *pc = c_.data();
#pragma omp parallel num_threads(threads)
  {
    const auto [begin, end] = share_of_thread(n);
    for (std::int64_t i = begin; i < end; ++i) {
      pb[i] = 1.0 + static_cast<double>(i % 7);
      pc[i] = 0.5;
    }
  }
}

double BandwidthPasses::bytes_per_pass() const {
  return (kernel_ == BandwidthKernel::Triad ? 24.0 : 16.0) * static_cast<double>(n_);
}

double BandwidthPasses::time(std::int64_t passes) {
  double* pa = a_.data();
  const std::int64_t n = n_;
  if (kernel_ == BandwidthKernel::InPlace)
    return time_between_barriers(threads_, [&] { in_place_passes(pa, n, passes); });
  const double *pb = b_.data(), *pc = c_.data();
  return time_between_barriers(threads_, [&] { triad_passes(pa, pb, pc, n, passes); });
}

std::int64_t BandwidthPasses::passes_for(double min_sample_s) {
  std::vector<double> warmup;
  for (int w = 0; w < kWarmupPasses; ++w) warmup.push_back(time(1));
  return passes_for_sample(warmup, min_sample_s);
}

std::vector<double> sample_bandwidth(BandwidthKernel kernel, double working_set_bytes, int threads,
                                     int samples, double min_sample_s) {
  BandwidthPasses kernel_passes(kernel, working_set_bytes, threads);
  const std::int64_t passes = kernel_passes.passes_for(min_sample_s);
  std::vector<double> gbs;
  for (int s = 0; s < samples; ++s) gbs.push_back(kernel_passes.sample_gbs(passes));
  return gbs;
}

Ceiling higher_of_kernels(const std::function<Ceiling(BandwidthKernel)>& measure) {
  const Ceiling triad = measure(BandwidthKernel::Triad);
  const Ceiling in_place = measure(BandwidthKernel::InPlace);
  return higher_best(in_place, triad);
}

}  // namespace tfbench::workloads::impl
