// The machine ceilings of a worker: the peaks by FMA throughput and by the same code as
// compute_control peer:openblas, each memory level's bandwidth by the higher of a STREAM triad (like
// bandwidth_control peer:openmp) and ERT's in-place kernel over a working set that fits the level;
// all at the worker's thread budget.

#include "tfbench/workloads/ceilings.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "ceilings/fma_peak.hpp"
#include "ceilings/handoff.hpp"
#include "ceilings/level_bandwidth.hpp"
#include "common/physical_memory.hpp"
#include "common/size_ladder.hpp"
#include "compute_control/compute_control.hpp"
#include "tfbench/workloads/llc_probe.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace tfbench::workloads {
namespace {

// n = 2048, compute_control's default: with OpenBLAS's AVX-512 kernels n = 1024 stays about 10%
// under it (46.8 against 51 GFLOP/s on one core of the Xeon), and a peak below what a control row
// attains is no ceiling. 0.35 s a call on that core; measured once per machine (the cache).
constexpr int kPeakGemmN = 2048;
// A level whose median sample is this far below its best is measured again, up to kAttempts in all:
// a thread descheduled for a time slice (another process, OpenBLAS's threads still spinning after
// the peaks, two unpinned threads on one CPU) slows every sample of a microsecond-long pass.
constexpr double kRetrySpread = 0.3;
constexpr int kAttempts = 3;
// Where sysfs says nothing: sizes no current x86 server core is below.
constexpr double kDefaultL1 = 32.0 * 1024, kDefaultL2 = 512.0 * 1024, kDefaultLlc = 8.0 * 1024 * 1024;

Ceiling summarize(std::vector<double> values, double working_set_bytes) {
  Ceiling c;
  if (values.empty()) return c;
  std::sort(values.begin(), values.end());
  c.best = values.back();
  c.worst = values.front();
  c.median = values[values.size() / 2];
  c.samples = static_cast<int>(values.size());
  c.working_set_bytes = working_set_bytes;
  return c;
}

ops::CacheSizes known_caches() {
  ops::CacheSizes c = detect_cache_sizes();
  if (!(c.l1_bytes > 0)) c.l1_bytes = kDefaultL1;
  if (!(c.l2_bytes > 0)) c.l2_bytes = std::max(kDefaultL2, 4 * c.l1_bytes);
  if (!(c.llc_bytes > 0)) c.llc_bytes = std::max(kDefaultLlc, c.l2_bytes);
  return c;
}

/// Working sets well inside each level at `threads` threads: half of the per-core L1 and L2 (times
/// the threads), the geometric mean of the L2s' total and the LLC (clear of both), and for DRAM four
/// times the largest cache (a quarter of the memory at most).
std::array<double, kMemoryLevels> level_working_sets(const ops::CacheSizes& c, int threads) {
  const double t = threads;
  const double l1 = t * c.l1_bytes / 2;
  const double l2 = std::max(t * c.l2_bytes / 2, 2 * l1);
  const double llc = std::max(std::sqrt(t * c.l2_bytes * c.llc_bytes), 2 * l2);
  double dram = std::max({4 * c.llc_bytes, 4 * t * c.l2_bytes, 64.0 * 1024 * 1024});
  const double memory = physical_memory_bytes();
  if (memory > 0) dram = std::max(std::min(dram, memory / 4), 2 * llc);
  return {l1, l2, llc, dram};
}

/// Further LLC working sets at `threads` threads: one per factor of 8 from the L2s' total to the LLC
/// (at most 3, each the geometric middle of its part, as `tune` sizes its LLC classes), leaving out
/// any within a factor of 1.5 of the level's own working set `llc_point`, and any over a quarter of
/// the memory.
std::vector<double> llc_ladder(const ops::CacheSizes& c, int threads, double llc_point) {
  const double lo = threads * c.l2_bytes, hi = c.llc_bytes;
  std::vector<double> out;
  if (!(lo > 0) || !(hi > 2 * lo)) return out;
  const double memory = physical_memory_bytes();
  for (double ws : log_size_ladder(lo, hi, 3)) {
    const double ratio = ws > llc_point ? ws / llc_point : llc_point / ws;
    if (ratio < 1.5 || (memory > 0 && ws > memory / 4)) continue;
    out.push_back(ws);
  }
  return out;
}

/// The capacity of `l` in `caches` (per core or shared, as given); unbounded for DRAM.
double capacity_of(const ops::CacheSizes& caches, ops::MemoryLevel l) {
  switch (l) {
    case ops::MemoryLevel::L1:
      return caches.l1_bytes;
    case ops::MemoryLevel::L2:
      return caches.l2_bytes;
    case ops::MemoryLevel::LLC:
      return caches.llc_bytes;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

/// A ceiling with the name the run's notes give it ("f64 peak", "l2 bandwidth", "llc bandwidth at
/// 146 MiB"): one spelling for the noisy and the lower-than-cached notes.
struct NamedCeiling {
  std::string name;
  const Ceiling* ceiling;
};

std::vector<NamedCeiling> named_ceilings(const Ceilings& c) {
  std::vector<NamedCeiling> out{{"f64 peak", &c.peak_f64}, {"f32 peak", &c.peak_f32}};
  for (int l = 0; l < kMemoryLevels; ++l)
    out.push_back({std::string(ops::name(static_cast<ops::MemoryLevel>(l))) + " bandwidth",
                   &c.bandwidth[static_cast<std::size_t>(l)]});
  for (const Ceiling& size : c.llc_sizes) {
    const auto mib = static_cast<long long>(size.working_set_bytes / (1024.0 * 1024) + 0.5);
    out.push_back({"llc bandwidth at " + std::to_string(mib) + " MiB", &size});
  }
  out.push_back({"handoff rate", &c.handoff});
  return out;
}

}  // namespace

const Ceiling& Ceilings::bandwidth_at(ops::MemoryLevel l, double bytes) const {
  const Ceiling* nearest = &level(l);
  if (l != ops::MemoryLevel::LLC || !(bytes > 0)) return *nearest;
  const auto distance = [bytes](const Ceiling& c) {
    return c.working_set_bytes > 0 ? std::abs(std::log(c.working_set_bytes / bytes))
                                   : std::numeric_limits<double>::infinity();
  };
  double best = nearest->measured() ? distance(*nearest) : std::numeric_limits<double>::infinity();
  for (const Ceiling& c : llc_sizes) {
    if (c.measured() && distance(c) < best) {
      best = distance(c);
      nearest = &c;
    }
  }
  return *nearest;
}

double Ceilings::resident_bytes(ops::MemoryLevel l) const {
  const auto i = static_cast<std::size_t>(l);
  const double capacity = capacity_of(ops::caches_for_threads(caches, threads), l);
  if (i >= cache_edges.size() || cache_edges[i].empty()) return capacity;
  const Ceiling &own = level(l), &next = level(static_cast<ops::MemoryLevel>(i + 1));
  if (!own.measured() || !next.measured() || !(next.best < own.best)) return capacity;
  // The level's own ceiling (at half its capacity), then its edges: one sweep toward the capacity.
  std::vector<SweepPoint> sweep{{own.working_set_bytes, own.best}};
  for (const Ceiling& edge : cache_edges[i])
    if (edge.measured() && edge.working_set_bytes > sweep.back().bytes)
      sweep.push_back({edge.working_set_bytes, edge.best});
  const double end = bytes_where_bandwidth_falls(sweep, std::sqrt(own.best * next.best));
  return end > 0 ? std::min(end, capacity) : capacity;
}

ops::MemoryLevel Ceilings::level_of(double bytes) const {
  for (ops::MemoryLevel l : {ops::MemoryLevel::L1, ops::MemoryLevel::L2, ops::MemoryLevel::LLC})
    if (bytes <= resident_bytes(l)) return l;
  return ops::MemoryLevel::DRAM;
}

namespace impl {

Ceiling measure_with_retries(const std::function<Ceiling()>& measure, double retry_spread, int attempts) {
  const auto spread = [](const Ceiling& c) { return c.measured() ? (c.best - c.median) / c.best : 1.0; };
  Ceiling kept = measure();
  for (int a = 1; a < attempts && spread(kept) > retry_spread; ++a) {
    Ceiling again = measure();
    if (!kept.measured() || (again.measured() && again.median > kept.median)) kept = again;
  }
  return kept;
}

}  // namespace impl

void Ceilings::settle_peaks() {
  peak_f64 = higher_best(fma_f64, gemm_f64);
  peak_f32 = higher_best(fma_f32, gemm_f32);
}

std::string Ceilings::peak_source(bool f32) const {
  const Ceiling &peak = f32 ? peak_f32 : peak_f64, &fma = f32 ? fma_f32 : fma_f64;
  const Ceiling& gemm = f32 ? gemm_f32 : gemm_f64;
  if (!peak.measured()) return "";
  if (fma.measured() && fma.best == peak.best) return "fma";
  if (gemm.measured() && gemm.best == peak.best) return "gemm";
  return "";
}

Ceilings measure_ceilings(const RunContext& ctx) {
  Ceilings c;
  c.threads = ctx.threads;
  c.caches = known_caches();
  const double gemm_bytes = 3.0 * kPeakGemmN * kPeakGemmN;
  c.gemm_f64 = summarize(
      sample_gemm_gflops(kPeakGemmN, ctx.threads, impl::kCeilingSamples, FlopPrecision::F64), 8 * gemm_bytes);
  c.gemm_f32 = summarize(
      sample_gemm_gflops(kPeakGemmN, ctx.threads, impl::kCeilingSamples, FlopPrecision::F32), 4 * gemm_bytes);
  // In registers: no working set. Retried like a cache level: a pass is milliseconds.
  const auto fma_peak = [&](FlopPrecision precision) {
    return impl::measure_with_retries(
        [&] {
          return summarize(impl::sample_fma_gflops(ctx.threads, impl::kCeilingSamples, precision,
                                                   impl::kCacheSampleSeconds),
                           0);
        },
        kRetrySpread, kAttempts);
  };
  c.fma_f64 = fma_peak(FlopPrecision::F64);
  c.fma_f32 = fma_peak(FlopPrecision::F32);
  c.settle_peaks();
  const auto sizes = level_working_sets(c.caches, ctx.threads);
  // A level's bandwidth: the higher of the two kernels, each retried while its samples spread.
  const auto level_bandwidth = [&](double ws, double min_sample_s) {
    return impl::higher_of_kernels([&](impl::BandwidthKernel kernel) {
      const auto measure = [&] {
        return summarize(impl::sample_bandwidth(kernel, ws, ctx.threads, impl::kCeilingSamples, min_sample_s),
                         ws);
      };
      return impl::measure_with_retries(measure, kRetrySpread, kAttempts);
    });
  };
  for (int level = 0; level < kMemoryLevels; ++level) {
    const bool dram = level == static_cast<int>(ops::MemoryLevel::DRAM);
    c.bandwidth[static_cast<std::size_t>(level)] =
        level_bandwidth(sizes[static_cast<std::size_t>(level)], dram ? 0.0 : impl::kCacheSampleSeconds);
  }
  for (double ws : llc_ladder(c.caches, ctx.threads, sizes[static_cast<std::size_t>(ops::MemoryLevel::LLC)]))
    c.llc_sizes.push_back(level_bandwidth(ws, impl::kCacheSampleSeconds));
  const ops::CacheSizes at = ops::caches_for_threads(c.caches, ctx.threads);
  for (std::size_t l = 0; l < c.cache_edges.size(); ++l) {
    const double capacity = capacity_of(at, static_cast<ops::MemoryLevel>(l));
    for (double fraction : kCacheEdgeFractions)
      c.cache_edges[l].push_back(level_bandwidth(fraction * capacity, impl::kCacheSampleSeconds));
  }
  if (ctx.threads > 1) {
    c.handoff = impl::measure_with_retries(
        [&] {
          return summarize(
              impl::sample_handoff_rate(ctx.threads, impl::kCeilingSamples, impl::kCacheSampleSeconds), 0);
        },
        kRetrySpread, kAttempts);
  }
  return c;
}

bool combinable(const Ceilings& earlier, const Ceilings& now) {
  const auto same_sizes = [](const std::vector<Ceiling>& a, const std::vector<Ceiling>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].working_set_bytes != b[i].working_set_bytes) return false;
    return true;
  };
  return earlier.threads == now.threads && earlier.caches.l1_bytes == now.caches.l1_bytes &&
         earlier.caches.l2_bytes == now.caches.l2_bytes && earlier.caches.llc_bytes == now.caches.llc_bytes &&
         same_sizes(earlier.llc_sizes, now.llc_sizes) &&
         same_sizes(earlier.cache_edges[0], now.cache_edges[0]) &&
         same_sizes(earlier.cache_edges[1], now.cache_edges[1]);
}

Ceilings best_of(const Ceilings& earlier, const Ceilings& now) {
  if (!combinable(earlier, now)) return now;
  Ceilings out = now;
  out.peak_f64 = higher_best(earlier.peak_f64, now.peak_f64);
  out.peak_f32 = higher_best(earlier.peak_f32, now.peak_f32);
  out.fma_f64 = higher_best(earlier.fma_f64, now.fma_f64);
  out.fma_f32 = higher_best(earlier.fma_f32, now.fma_f32);
  out.gemm_f64 = higher_best(earlier.gemm_f64, now.gemm_f64);
  out.gemm_f32 = higher_best(earlier.gemm_f32, now.gemm_f32);
  for (std::size_t l = 0; l < out.bandwidth.size(); ++l)
    out.bandwidth[l] = higher_best(earlier.bandwidth[l], now.bandwidth[l]);
  for (std::size_t i = 0; i < out.llc_sizes.size(); ++i)
    out.llc_sizes[i] = higher_best(earlier.llc_sizes[i], now.llc_sizes[i]);
  for (std::size_t l = 0; l < out.cache_edges.size(); ++l)
    for (std::size_t i = 0; i < out.cache_edges[l].size(); ++i)
      out.cache_edges[l][i] = higher_best(earlier.cache_edges[l][i], now.cache_edges[l][i]);
  out.handoff = higher_best(earlier.handoff, now.handoff);
  return out;
}

std::string lower_ceilings(const Ceilings& earlier, const Ceilings& now, double margin) {
  if (!combinable(earlier, now)) return {};  // best_of takes `now` whole: nothing was kept from earlier
  const std::vector<NamedCeiling> before = named_ceilings(earlier), after = named_ceilings(now);
  std::string text;
  for (const NamedCeiling& n : after) {
    const auto match =
        std::find_if(before.begin(), before.end(), [&](const NamedCeiling& b) { return b.name == n.name; });
    if (match == before.end()) continue;
    const Ceiling &c = *match->ceiling, &m = *n.ceiling;
    if (!c.measured() || !m.measured() || m.best >= (1 - margin) * c.best) continue;
    text += (text.empty() ? "" : ", ") + n.name + " " +
            std::to_string(static_cast<int>((1 - m.best / c.best) * 100 + 0.5)) + "% lower";
  }
  return text;
}

std::string noisy_ceiling(const Ceilings& c, double limit) {
  std::string name;
  double worst = limit;
  // The median, not the worst sample: one sample slowed by a page fault or an interrupt is routine,
  // half of them slowed means the CPUs were shared.
  for (const NamedCeiling& n : named_ceilings(c)) {
    const Ceiling& ceiling = *n.ceiling;
    const double spread = ceiling.measured() ? (ceiling.best - ceiling.median) / ceiling.best : 0.0;
    if (spread > worst) {
      worst = spread;
      name = n.name;
    }
  }
  if (name.empty()) return name;
  return name + ": median sample " + std::to_string(static_cast<int>(worst * 100 + 0.5)) + "% below the best";
}

namespace {

/// The bound at the ceilings' own threads (see roofline_bound), without a handoff.
std::optional<RooflineBound> bound_at(const Ceilings& ceilings, double flops, double bytes,
                                      double write_allocate_bytes, double working_set_bytes,
                                      FlopPrecision precision, double beside_gbs, double beside_gflops) {
  const bool has_flops = flops > 0, has_bytes = bytes > 0;
  RooflineBound r;
  r.threads = ceilings.threads;
  r.level = ceilings.level_of(working_set_bytes > 0 ? working_set_bytes : bytes);
  // Only from DRAM: a working set that fits a cache keeps its lines there from one run to the next,
  // so a store finds its line present. Measured on the EPYC VM (2026-12-04): a DRAM triad reads
  // 41.4 GB/s counting 24 bytes per element, 55 counting the 32 it moves, and the in-place kernel
  // (whose stores write lines it read) 58.8; in the L2 a chain of such stores ran faster than a
  // second transfer per stored line would allow.
  const bool rereads = r.level == ops::MemoryLevel::DRAM && write_allocate_bytes > 0;
  r.traffic_bytes = has_bytes ? bytes + (rereads ? write_allocate_bytes : 0.0) : 0.0;
  const Ceiling& peak = precision == FlopPrecision::F32 ? ceilings.peak_f32 : ceilings.peak_f64;
  const Ceiling& ceiling = ceilings.bandwidth_at(r.level, working_set_bytes > 0 ? working_set_bytes : bytes);
  const double bandwidth = beside_gbs > 0 ? beside_gbs : ceiling.best;
  const double gflops = beside_gflops > 0 ? beside_gflops : peak.best;
  const double compute_s = has_flops && gflops > 0 ? flops / (gflops * 1e9) : 0.0;
  const double memory_s = has_bytes && bandwidth > 0 ? r.traffic_bytes / (bandwidth * 1e9) : 0.0;
  // A bound needs every ceiling the row's work names: half a roofline would read too high.
  if ((has_flops && !(gflops > 0)) || (has_bytes && !(bandwidth > 0))) return std::nullopt;
  if (!(compute_s > 0) && !(memory_s > 0)) return std::nullopt;
  r.compute_bound = compute_s >= memory_s;
  r.seconds = std::max(compute_s, memory_s);
  r.ceiling = r.compute_bound ? (precision == FlopPrecision::F32 ? "peak_f32" : "peak_f64")
                              : std::string("bw_") + ops::name(r.level);
  return r;
}

}  // namespace

std::optional<RooflineBound> roofline_bound(const Ceilings& ceilings, double flops, double bytes,
                                            double write_allocate_bytes, double working_set_bytes,
                                            FlopPrecision precision, const MeasuredBeside& beside,
                                            const Ceilings* one_thread) {
  auto spread = bound_at(ceilings, flops, bytes, write_allocate_bytes, working_set_bytes, precision,
                         beside.gbs, beside.gflops);
  const double handoff_s = beside.handoff_s > 0 ? beside.handoff_s : ceilings.handoff_seconds();
  if (!spread || ceilings.threads <= 1 || !one_thread || one_thread->threads != 1 || !(handoff_s > 0))
    return spread;
  const auto single = bound_at(*one_thread, flops, bytes, write_allocate_bytes, working_set_bytes, precision,
                               beside.one_thread_gbs, beside.one_thread_gflops);
  spread->seconds += handoff_s;
  if (single && single->seconds < spread->seconds) return single;
  return spread;
}

}  // namespace tfbench::workloads
