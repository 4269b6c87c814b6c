#pragma once
// The machine's roofline, measured the way the Empirical Roofline Toolkit does: the peak FLOP/s
// (per precision, the higher of independent FMAs on the build's widest vectors and a large GEMM
// through the BLAS) and the bandwidth of each memory level (the higher of a STREAM triad and ERT's
// in-place kernel over a working set that sits in L1, L2, the last-level cache or DRAM), each from several
// samples with their spread, at one worker's thread budget. A row's attainable bound is min(peak, AI x
// bandwidth of the level its working set lives in) (docs/results-format.md, "Roofline").

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfbench/engine/ops/batched/auto_tuning.hpp"
#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

/// One measured ceiling: the best sample is what the machine attains (ERT's estimator, since noise
/// only ever slows a sample down); median and worst show how far a sample can fall short.
struct Ceiling {
  double best = std::nan("");    // GFLOP/s or GB/s
  double median = std::nan("");  // of the samples
  double worst = std::nan("");
  int samples = 0;
  double working_set_bytes = 0;  // bandwidth ceilings: the kernel's arrays; peaks: the three matrices
  /// (best - worst) / best: 0 for perfectly repeatable samples; NaN when not measured.
  double spread() const { return best > 0 ? (best - worst) / best : std::nan(""); }
  bool measured() const { return best > 0; }
};

/// Of two measurements of one ceiling, the one with the higher best: `a` where it is measured and
/// above `b` (a NaN `b` counts as below), else `b`.
inline const Ceiling& higher_best(const Ceiling& a, const Ceiling& b) {
  return a.measured() && !(b.best >= a.best) ? a : b;
}

constexpr int kMemoryLevels = 4;  // ops::MemoryLevel: L1, L2, LLC, DRAM
/// Where measure_ceilings samples each per-core cache's edge, as fractions of its capacity (its own
/// ceiling is at a half).
constexpr std::array<double, 4> kCacheEdgeFractions = {0.625, 0.75, 0.875, 1.0};

struct Ceilings {
  Ceiling peak_f64, peak_f32;                    // GFLOP/s: what rows are bound by, the higher of:
  Ceiling fma_f64, fma_f32;                      //   FMA throughput on the build's widest vectors
  Ceiling gemm_f64, gemm_f32;                    //   a large GEMM through the BLAS
  std::array<Ceiling, kMemoryLevels> bandwidth;  // GB/s, indexed by ops::MemoryLevel
  ops::CacheSizes caches;                        // per-core L1d, L2; shared LLC (bytes)
  int threads = 0;                               // the thread budget they were measured at
  // The LLC's bandwidth at further working sets, ascending: a shared LLC spans a factor of 100 or
  // more (2 to 300 MiB on a Xeon whose L3 serves a whole socket of tenants), and a working set near
  // its capacity streams at nearly the DRAM's bandwidth, not at the bandwidth of its middle.
  std::vector<Ceiling> llc_sizes;
  /// Round trips per second of one cache line between two of the worker's threads (handoff.hpp),
  /// measured only at 2 threads or more: 1 / best is the least time a parallel region spends on
  /// top of its work, what roofline_bound adds to the bound of work spread over the threads.
  Ceiling handoff;
  /// Each per-core cache's bandwidth (L1, L2) at kCacheEdgeFractions of its capacity at these
  /// threads, ascending: where the level ends (resident_bytes). Empty in files before results v1.9.
  std::array<std::vector<Ceiling>, 2> cache_edges;

  const Ceiling& level(ops::MemoryLevel l) const { return bandwidth[static_cast<std::size_t>(l)]; }
  /// The bandwidth a working set of `bytes` in `l` is measured against: the level's, or for the LLC
  /// the measured one (the level's or one of llc_sizes) nearest to `bytes` on a log scale.
  const Ceiling& bandwidth_at(ops::MemoryLevel l, double bytes) const;
  Ceiling& level(ops::MemoryLevel l) { return bandwidth[static_cast<std::size_t>(l)]; }
  /// The two numbers of the first ceilings (ceiling_gflops, ceiling_gbs): f64 peak and DRAM.
  double gflops() const { return peak_f64.best; }
  double gbs() const { return level(ops::MemoryLevel::DRAM).best; }
  /// peak_f64 and peak_f32 from the FMA and GEMM measurements (the higher best of each pair).
  void settle_peaks();
  /// "fma" or "gemm": which measurement peak_f64 (`f32`: peak_f32) is; empty when neither ran.
  std::string peak_source(bool f32) const;
  /// The largest working set that lives in `l` at these threads: for L1 and L2, where the level's
  /// bandwidth toward its capacity (cache_edges) falls through the geometric mean of its ceiling and
  /// the next level's, interpolated on a log-log scale as the LLC's end is; else (and without edges)
  /// the capacity. A working set that fills a cache does not stay in it: on the EPYC VM (48 KiB
  /// L1d) the triad read 415 GB/s over 32 KiB, 314 over 40 and 206 over 48, the L2's 230-245.
  double resident_bytes(ops::MemoryLevel l) const;
  /// The level a working set of `bytes` lives in at these threads: the first whose resident_bytes
  /// holds it (L1 and L2 are per core, so their capacity grows with the threads; the LLC is shared).
  ops::MemoryLevel level_of(double bytes) const;
  /// 1 / handoff.best in seconds; NaN where not measured (one thread, or an older cache).
  double handoff_seconds() const { return handoff.measured() ? 1.0 / handoff.best : std::nan(""); }
};

/// Measures every ceiling at ctx.threads (OpenMP threads for the bandwidth kernels and the FMAs, BLAS
/// threads for the GEMM); a few seconds, most of it the first touch of the DRAM working sets.
Ceilings measure_ceilings(const RunContext& ctx);

/// A level's bandwidth measured again beside a row: the ceiling's kernels over the ceiling's working
/// set (`working_set_bytes`: Ceiling::working_set_bytes of the level, or of the LLC size bandwidth_at
/// picks), the faster kept, as an Instance the worker times in the rounds of the row's case. On a
/// shared host a level delivers 25-50% less for minutes at a time, so a ceiling measured before the
/// run and a row measured later disagree by the host's state, not the row's efficiency. run() times
/// its passes between barriers, as the ceiling does (self_timed_seconds); work().bytes is the
/// kernel's count of one run.
std::unique_ptr<Instance> bandwidth_reference(ops::MemoryLevel level, double working_set_bytes, int threads);
/// The FMA peak measured again beside a compute-bound row, the same way (5 ms of independent FMA
/// chains per run on every thread, between barriers); work().flops counts one run's. Stands for the
/// peak only where the cached peak is the FMA measurement (peak_source "fma"), not a GEMM's.
std::unique_ptr<Instance> peak_reference(FlopPrecision precision, int threads);
/// The handoff measured again beside a case at `threads` (>= 2): each run `round_trips_per_run`
/// round trips of a cache line between threads 0 and 1 of one OpenMP region (about 5 ms), timed
/// between barriers like the ceiling (self_timed_seconds); work() is empty (neither flops nor bytes).
/// On the 2-vCPU VMs the round trip moves between ~0.06 and ~0.46 us as the hypervisor places the
/// vCPUs, for minutes at a time, so the best kept and a row's minutes disagree as the levels do.
struct HandoffReference {
  std::unique_ptr<Instance> instance;  // null where a region of `threads` gets one thread
  double round_trips_per_run = 0.0;
};
HandoffReference handoff_reference(int threads);

/// Whether two measurements were sized alike (threads, caches, the LLC ladder's working sets), so
/// that best_of combines them ceiling by ceiling.
bool combinable(const Ceilings& earlier, const Ceilings& now);

/// Per ceiling, the measurement with the higher best, as the cache keeps them: noise only ever slows
/// a sample down, so a measurement taken while the host was slower (its best sample 20-40% under an
/// earlier one's, with a tight spread) is no ceiling. `now` whole where the two were not sized alike
/// (threads, caches, the LLC ladder).
Ceilings best_of(const Ceilings& earlier, const Ceilings& now);

/// The ceilings of `now` whose best reads more than `margin` (0.1: 10%) below the same ceiling of
/// `earlier`, as "f64 peak 22% lower, llc bandwidth at 146 MiB 31% lower"; empty when none does.
/// Empty where the two are not combinable: best_of then keeps `now` whole, and nothing is taken
/// from `earlier`.
std::string lower_ceilings(const Ceilings& earlier, const Ceilings& now, double margin);

/// The margin at which a worker's own ceilings are named short of those kept in the cache: by the run
/// as it measures them, and by `report` from the file (its ceilings_measured against its ceilings).
inline constexpr double kKeptCeilingShortfall = 0.1;

/// The ceiling whose median sample falls furthest below its best, as "l2 bandwidth: median sample
/// 45% below the best", when that exceeds `limit`; empty otherwise: such ceilings were measured on a
/// busy machine.
std::string noisy_ceiling(const Ceilings& ceilings, double limit);

/// The attainable bound of a row: the time the roofline allows for one run, and which ceiling sets it.
struct RooflineBound {
  double seconds = std::nan("");  // max(flops / peak, traffic_bytes / bandwidth of the level)
  /// The bytes the level moves in one run: `bytes`, and at the DRAM level also the write-allocate
  /// reads of `write_allocate_bytes` (the caches hold the lines of every other level's working set).
  double traffic_bytes = 0.0;
  ops::MemoryLevel level = ops::MemoryLevel::DRAM;
  bool compute_bound = false;  // the peak, not the level's bandwidth, sets the bound
  /// "peak_f64", "peak_f32", or "bw_l1", "bw_l2", "bw_llc", "bw_dram".
  std::string ceiling;
  /// The threads the bound assumes: the ceilings' own, or 1 where one thread's ceilings bound the work
  /// more tightly than the worker's threads plus their handoff (roofline_bound's `one_thread`).
  int threads = 1;
};
/// The ceilings measured beside a row (bandwidth_reference, peak_reference, handoff_reference), each
/// used in place of the cached best where positive.
struct MeasuredBeside {
  double gbs = std::nan("");        // the bandwidth of the row's level
  double gflops = std::nan("");     // the peak of its precision
  double handoff_s = std::nan("");  // one round trip between two of the worker's threads
  /// In a worker of several threads, one thread's ceiling that sets one thread's bound: the bandwidth
  /// of one thread's level, or one thread's peak (in place of `one_thread`'s cached best).
  double one_thread_gbs = std::nan("");
  double one_thread_gflops = std::nan("");
};

/// Empty when the ceilings it needs were not measured or the row reports no work. `bytes` is what one
/// run reads and writes, `write_allocate_bytes` the part of it stored without being read
/// (Work::write_allocate_bytes), `working_set_bytes` its footprint (0: `bytes`).
///
/// A worker of T > 1 threads may run a row on one thread or on several; on several it pays at least
/// one handoff (Ceilings::handoff) besides its share of the work. With `one_thread` (the same
/// machine's ceilings at one thread) and a measured handoff, the bound is the smaller of the
/// one-thread bound and the T-thread bound plus the handoff: a 1-microsecond batch that no parallel
/// region can speed up is then held to what one core allows, not to twice that. Without either, the
/// T-thread bound alone, as before. Each bound takes the ceilings measured beside the row where
/// `beside` has them: the T threads' level or peak and handoff, one thread's level or peak.
std::optional<RooflineBound> roofline_bound(const Ceilings& ceilings, double flops, double bytes,
                                            double write_allocate_bytes, double working_set_bytes,
                                            FlopPrecision precision, const MeasuredBeside& beside = {},
                                            const Ceilings* one_thread = nullptr);

}  // namespace tfbench::workloads
