#pragma once
// Calibration of Auto on the machine it runs on: for each class Auto must decide (family, dtype,
// item size, memory level of the operands, threads), every provider and strategy that can run it is
// checked against a reference, then timed in interleaved rounds; the fastest becomes the class's
// choice. The harness writes the results to a tuning file and installs them into the engine
// backends of its workers (install_auto_tuning), whose batch policy then carries them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"
#include "tfbench/workloads/host_load.hpp"

namespace tfbench::workloads {

/// Per-core L1d and L2 and the last-level cache of this machine: Linux sysfs, and for a level sysfs
/// does not list (virtual machines whose hypervisor exposes no cache topology there) the C library's
/// CPUID-based report; 0 where neither knows. The LLC: $TFBENCH_LLC_BYTES where the user sets it,
/// else sysfs, else the capacity tfbench measured (llc_probe.hpp; the harness passes it to its
/// processes in $TFBENCH_LLC_MEASURED), else the CPUID report. Read once per process.
ops::CacheSizes detect_cache_sizes();

/// The sizes and where they came from: "sysfs", "cpuid", "sysfs+cpuid" (some levels each) or "none";
/// the LLC's own source ("sysfs", "cpuid", "measured", "TFBENCH_LLC_BYTES") and what sysfs or CPUID
/// reported of it before an override.
struct DetectedCaches {
  ops::CacheSizes sizes;
  std::string source;
  std::string llc_source;
  double reported_llc_bytes = 0;
};
DetectedCaches detect_caches();

/// Where Linux lists CPU 0's caches.
constexpr const char* kSysfsCacheDir = "/sys/devices/system/cpu/cpu0/cache";

/// The environment variables of the LLC's overrides: the user's, and the measured capacity.
constexpr const char* kLlcBytesVariable = "TFBENCH_LLC_BYTES";
constexpr const char* kLlcMeasuredVariable = "TFBENCH_LLC_MEASURED";

/// A byte count as the variables spell it ("33554432", "32M", "32768K", "1G"); 0 when it is not one.
double parse_byte_size(const std::string& text);

/// `found` with the LLC's overrides applied (null: unset): `user` always, `measured` only where the
/// LLC did not come from sysfs. detect_caches() is this over the environment.
DetectedCaches with_llc_overrides(DetectedCaches found, const char* user, const char* measured);

/// The parts of detect_caches, for tests: the sizes listed under a sysfs cache directory
/// (`.../cpu0/cache`; 0 for a level it does not list), the C library's report (sysconf), and the
/// two combined, sysfs first.
ops::CacheSizes read_sysfs_cache_sizes(const std::string& cache_dir);
ops::CacheSizes cpuid_cache_sizes();
DetectedCaches detect_cache_sizes_from(const std::string& sysfs_cache_dir, const ops::CacheSizes& cpuid);

/// Operand bytes the classes of `level` are measured at, ascending. L1 and DRAM: one size (half the
/// L1; `dram_bytes`, at least twice the LLC, since a batch that fits it is not a DRAM batch). L2 and
/// the LLC span wide ranges (an LLC from 2 to 300 MiB), and the fastest provider changes inside one
/// (libxsmm at 3 MiB, the specialized kernel at 25 MiB on a Xeon): one size per factor of 8 of the
/// range, at most `max_sizes`, each the geometric middle of its part; and, unless `max_sizes` is 1,
/// one in the L2's top octave (capacity / sqrt 2), where the operands begin to spill, when the
/// ladder's last size is more than 1.5x below it, and one in the LLC's bottom octave (the L2's
/// capacity x sqrt 2), where they have just left the L2, when the ladder's first size is more than
/// 1.5x above it. With `llc_top_octave` (a full `tfbench tune`, not the bounded first-use calibration),
/// also one in the LLC's top octave (capacity / sqrt 2), where the operands begin to spill from it,
/// when the ladder's last size is more than 1.5x below it. `c`: the caches of the class's threads
/// (caches_for_threads: with two threads the L2 range ends at twice one core's L2).
std::vector<double> target_bytes(ops::MemoryLevel level, const ops::CacheSizes& c, double dram_bytes,
                                 int max_sizes, bool llc_top_octave = false);

struct TuneOptions {
  ExecSpaceKind space = ExecSpaceKind::Serial;  // the worker space of the classes (OpenMP or Serial)
  int threads = 1;                              // their thread count (1: Kokkos::Serial, as workers)
  std::vector<int> item_dims{2, 4, 8, 16, 32};
  std::vector<ops::MemoryLevel> levels{ops::MemoryLevel::L1, ops::MemoryLevel::L2, ops::MemoryLevel::LLC,
                                       ops::MemoryLevel::DRAM};
  ops::CacheSizes caches;                   // the level boundaries (detect_cache_sizes())
  double dram_bytes = 256.0 * 1024 * 1024;  // operand bytes of a DRAM class (at least 2x the LLC)
  int max_sizes_per_level = 3;              // L2 and LLC: one size per factor of 8 of the level, at most this
                                            // (target_bytes), and one in the L2's top octave and one in
                                            // the LLC's bottom octave unless 1
  bool llc_top_octave = true;               // and one in the LLC's top octave (target_bytes)
  std::vector<DType> dtypes{DType::F64, DType::F32};  // element types (f64 and f32 are tuned)
  bool gemm = true, solve = true;                     // which families
  // Contractions' direct-kernel crossover (tune_direct_contraction): item sizes n of the ladder
  // (about n^3 multiply-adds each).
  std::vector<int> contraction_sizes{2, 3, 4, 5, 6, 8, 10, 12, 16, 20};
  int rounds = 5;             // interleaved rounds; each candidate's best round decides (choose_fastest)
  double min_time_s = 0.005;  // per sample: iterations repeat until this much time passed
  std::uint64_t seed = 1;
  // A class whose rounds ran while other work or the hypervisor took more of the CPUs than busy_share
  // (HostLoad) is measured again, at most busy_retries times; still busy, it is marked so. A negative
  // share treats every class as busy (tests).
  int busy_retries = 2;
  double busy_share = kBusyHostShare;
};

/// One provider/strategy pair (libxsmm: with and without prefetching; GEMM items beyond the L1: with
/// and without streaming stores of C) measured for a class.
struct TuneCandidate {
  ops::ItemProvider provider = ops::ItemProvider::Specialized;
  BatchStrategy strategy = BatchStrategy::Sequential;
  double median_s = 0;                   // per operation, the median of the rounds; NaN when it did not run
  double max_rel_error = 0;              // against the reference, before timing
  std::string skipped;                   // why it did not run (no route, failed its check), else empty
  std::optional<bool> prefetch;          // libxsmm: its kernel prefetches the next item (else empty)
  double best_s = 0;                     // per operation, the fastest round (what decides); 0: not known
  std::optional<bool> streaming_stores;  // GEMM, specialized and libxsmm: C in streaming stores (else empty)
  std::optional<bool> narrow_vectors;    // GEMM, specialized items of two kernel widths: the 256-bit one

  ops::TuningChoice choice() const {
    return {provider, strategy, prefetch, streaming_stores, narrow_vectors};
  }
  /// e.g. "libxsmm+prefetch+nt-stores/outer-parallel".
  std::string label() const;
  /// The time a choice is made by: best_s, or median_s where best_s is not known (an older file).
  double decisive_s() const { return best_s > 0 ? best_s : median_s; }
};

/// The candidates a class of `family` at `threads` and `level` measures: each sequential item provider
/// alone and, with threads, fanned out, BLAS/LAPACK as provider-managed items; for a GEMM the
/// specialized kernel and libxsmm with regular and (beyond the L1) streaming stores of C, libxsmm with
/// and without its prefetch, the specialized kernel in both widths where the items have two
/// (`two_widths`: ops::has_two_kernel_widths) and with and without its prefetch where they have a
/// prefetching kernel (`prefetching`: ops::has_prefetching_kernel).
std::vector<TuneCandidate> candidates_of(ops::BatchedFamily family, int threads, ops::MemoryLevel level,
                                         bool two_widths, bool prefetching);

/// Sets each candidate's median_s and best_s from its per-round samples (`samples[i]` for
/// `candidates[i]`) and returns the choice of the fastest by its best round among those not skipped.
/// The best round, as FFTW's planner takes the minimum: interference on a shared machine (another
/// process, a stolen vCPU) only ever slows a round, and on the 2-core Xeon VM a burst of it over 3
/// of 5 rounds made a 2-thread fan-out's median slower than one thread's. A route with streaming
/// stores of C stands only where its twin with regular stores (the same provider, strategy, prefetch
/// and kernel width) has no round as fast as its median; in such a tie it is set aside and the fastest of the
/// rest decides (ops::choose_measured, the rule lookup()'s interpolation takes too).
std::optional<ops::TuningChoice> choose_fastest(std::vector<TuneCandidate>& candidates,
                                                const std::vector<std::vector<double>>& samples);

/// Seconds per call of `run` as repeated calls see it: one call untimed first, then calls until
/// `min_time_s` passed (at least one). The call after another candidate's pays for, or profits from,
/// what that one left behind (its dirty lines of C in the LLC, its writes still queued for DRAM).
/// Measured on the EPYC VM, n = 16 from DRAM at one thread, libxsmm with prefetch: with streaming
/// stores of C 7.25 ms against 8.11 without, timed one call each right after another candidate; 7.46
/// against 7.20 over 50 ms of calls; and the run that followed the first tuning took Auto (streaming)
/// at 9.95 ms against 8.8 for the same kernel with regular stores, 0.85x libxsmm's peer.
template <class Run>
double steady_seconds_per_call(Run&& run, double min_time_s) {
  using clock = std::chrono::steady_clock;
  run();
  std::int64_t calls = 0;
  const auto start = clock::now();
  double elapsed = 0;
  do {
    run();
    ++calls;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < min_time_s);
  return elapsed / static_cast<double>(calls);
}

/// Marks skipped ("over 3x the fastest ...") each candidate whose best sample so far is over 3x the
/// fastest candidate's best, with its median_s and best_s so far. `tune` calls it after two rounds.
void drop_slow_candidates(std::vector<TuneCandidate>& candidates,
                          const std::vector<std::vector<double>>& samples);

struct TuneClassResult {
  ops::TuningClass cls;
  std::int64_t items = 0;
  double operand_bytes = 0;
  std::vector<TuneCandidate> candidates;
  std::optional<ops::TuningChoice> choice;  // the fastest candidate that passed its check
  // The host's load over the kept attempt's rounds (HostLoad; NaN: too short to tell), how many
  // attempts the class took, and whether the last was still busy (Auto does not use such a class).
  double host_other_cpu = std::numeric_limits<double>::quiet_NaN();
  double host_steal = std::numeric_limits<double>::quiet_NaN();
  int attempts = 1;
  bool busy_host = false;
};

/// Measures every class of `options` (one thread configuration) in this process; `progress` is
/// called with one line per class. Needs Kokkos initialized with at least `threads` host threads.
std::vector<TuneClassResult> tune_batched(const TuneOptions& options,
                                          const std::function<void(const std::string&)>& progress);

/// One size of the contraction ladder: both routes' best round (seconds per replay of its two
/// contractions) and the larger of their errors against the host loop.
struct ContractionCrossoverPoint {
  int n = 0;
  double muladds = 0;  // per item, of each contraction
  double direct_s = std::numeric_limits<double>::quiet_NaN();
  double gemm_s = std::numeric_limits<double>::quiet_NaN();
  double max_rel_error = 0;
};

/// Where a contraction step's direct strided kernel stops beating pack + GEMM at one thread count:
/// direct_max_muladds is the threshold (multiply-adds per item, 0: never direct) that costs the
/// measured ladder least, each size counted by its chosen route's time over the faster one's.
struct ContractionCrossover {
  int threads = 1;
  std::vector<ContractionCrossoverPoint> points;
  double direct_max_muladds = 0;
  double host_other_cpu = std::numeric_limits<double>::quiet_NaN();
  double host_steal = std::numeric_limits<double>::quiet_NaN();
  bool busy_host = false;
};

/// Measures the crossover for `options.threads` over options.contraction_sizes (f64; both routes
/// forced by BatchThresholds::direct_contraction_muladds, checked against a host loop, then prepared
/// replays timed in options.rounds interleaved rounds, the best round deciding; a busy host measured
/// again as the classes are). Throws WorkloadError when a route fails its check.
ContractionCrossover tune_direct_contraction(const TuneOptions& options,
                                             const std::function<void(const std::string&)>& progress);

/// The tuning the engine variants of this process use: make_backend puts it in every backend's
/// default batch policy. Null (the default): Auto's built-in preference.
void install_auto_tuning(std::shared_ptr<const ops::AutoTuning> tuning);
std::shared_ptr<const ops::AutoTuning> installed_auto_tuning();

}  // namespace tfbench::workloads
