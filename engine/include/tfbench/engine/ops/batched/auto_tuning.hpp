#pragma once
// Auto's measured choices: which item provider (and batch strategy) was fastest on this machine for
// a class of batched problems. Filled from a tuning file by the caller (the engine reads no files) and
// carried by a BatchPolicy; Auto consults it before its built-in preference, which stays the fallback
// wherever the tuning has no class for a problem.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/ops/item_providers.hpp"

namespace tfbench::ops {

/// The memory level a batch's operands live in, by their total bytes against the cache sizes.
enum class MemoryLevel { L1, L2, LLC, DRAM };
/// "l1", "l2", "llc", "dram".
const char* name(MemoryLevel level);
std::optional<MemoryLevel> parse_memory_level(std::string_view text);

/// Per-core L1d and L2, shared last-level cache, in bytes (as the tuning measured them).
struct CacheSizes {
  double l1_bytes = 0, l2_bytes = 0, llc_bytes = 0;
};
/// The smallest level the working set fits in; levels of size 0 are skipped.
MemoryLevel memory_level(double working_set_bytes, const CacheSizes& caches);
/// The caches `threads` workers hold between them: each its private L1 and L2, all one shared LLC.
/// A batch split over two lanes whose halves fit each core's L2 is an L2 batch, not an LLC one.
CacheSizes caches_for_threads(const CacheSizes& caches, int threads);

/// The shape class of one measured decision.
struct TuningClass {
  BatchedFamily family = BatchedFamily::Gemm;
  DType dtype = DType::F64;
  int item_dim = 0;  // n of n x n items (the largest of m, n, k)
  MemoryLevel level = MemoryLevel::L1;
  int threads = 1;  // threads of the execution context it was measured in
  // Operand bytes it was measured at; 0: anywhere in its level. A level is measured at several
  // sizes where it spans a wide range (an LLC from 2 to 300 MiB), and the nearest size decides.
  double working_set_bytes = 0;
};

/// What won for a class. `strategy` empty: Auto's cost model decides the fan-out for that provider.
struct TuningChoice {
  ItemProvider provider = ItemProvider::Specialized;
  std::optional<BatchStrategy> strategy;
  /// libxsmm: whether its kernel prefetches the next item (BatchedOptions::prefetch). Empty: the
  /// built-in rule (on beyond the L2 cache).
  std::optional<bool> prefetch;
  /// GEMM items of the specialized kernel or libxsmm: whether C is written with streaming stores
  /// (BatchedOptions::streaming_stores). Empty: the built-in rule.
  std::optional<bool> streaming_stores;
  /// GEMM items of the specialized kernel in both widths: whether the 256-bit kernel runs
  /// (BatchedOptions::narrow_vectors). Empty: the 512-bit one.
  std::optional<bool> narrow_vectors;

  bool operator==(const TuningChoice& o) const {
    return provider == o.provider && strategy == o.strategy && prefetch == o.prefetch &&
           streaming_stores == o.streaming_stores && narrow_vectors == o.narrow_vectors;
  }
  bool operator!=(const TuningChoice& o) const { return !(*this == o); }
};
/// e.g. "libxsmm+prefetch+nt-stores/outer-parallel", "specialized+256-bit/sequential"; "auto" for a
/// choice without a strategy.
std::string describe(const TuningChoice& choice);

/// How long one candidate took for a class's batch, per operation: its fastest round (what decides)
/// and the median of its rounds (its spread; 0 where not known, then the fastest stands for both).
struct TunedTime {
  TuningChoice choice;
  double seconds = 0;
  double median_seconds = 0;
};

/// The measured choice among candidates' times: the one rule of `tune`'s classes and of lookup()'s
/// interpolation between two of them. The fastest by its fastest round (interference on a shared
/// machine only ever slows a round), except that a route with streaming stores of C whose twin with
/// regular stores (same provider, strategy, prefetch and kernel width) has a fastest round within the
/// streaming one's median is set aside (what streaming stores save moves with the DRAM's state of the
/// moment), and the rule applies to the rest. The index into `times`; empty when none has a time.
std::optional<std::size_t> choose_measured(const std::vector<TunedTime>& times);

class AutoTuning {
 public:
  /// `id` names the tuning's source in route reports and results (e.g. the file's sha256).
  AutoTuning(std::string id, CacheSizes caches)
      : id_(std::move(id)), caches_(caches), serial_(next_serial()) {}

  /// Adds or replaces the choice for one class, with the times of the candidates that ran for it
  /// (optional: without them the class's choice stands wherever the class is the nearest).
  void add(const TuningClass& cls, const TuningChoice& choice, std::vector<TunedTime> times = {});

  /// The choice for a problem from the measured classes: same family, dtype and memory level (of the
  /// caches `threads` workers hold, caches_for_threads, as the classes were measured); the
  /// largest measured thread count not above `threads` (else the smallest); the measured item_dim
  /// nearest to `item_dim` on a log scale, and only within a factor of two of it. Of that item_dim's
  /// classes (one level is measured at several sizes), a working set between two of them takes the
  /// candidate that choose_measured picks from their times (fastest rounds and medians) interpolated
  /// linearly in log(time) over log(bytes) (the candidates both measured); otherwise the class
  /// measured nearest to `working_set_bytes` on a log scale decides. Empty: no class applies (Auto's built-in
  /// preference decides). Each thread remembers its last question and answer: a caller repeating one shape
  /// (every benchmark, most applications) gets it in a few nanoseconds instead of the 20-65 ns of the search
  /// over 300 classes, which made a tuned 2 x 2 batch of 512 items 8% slower than the same route forced.
  std::optional<TuningChoice> lookup(BatchedFamily family, DType dtype, int item_dim,
                                     double working_set_bytes, int threads) const;

  /// Contractions: the multiply-adds per item up to which the direct kernel was measured faster than
  /// pack + GEMM at `threads` threads (the crossover `tune` measures; BatchThresholds::
  /// direct_contraction_muladds). Replaces an earlier value for the same thread count.
  void set_direct_contraction(int threads, double muladds);
  /// The crossover measured at the largest thread count not above `threads` (else the smallest);
  /// empty when none was measured.
  std::optional<double> direct_contraction_muladds(int threads) const;

  const std::string& id() const { return id_; }
  /// A number no other AutoTuning of this process has, renewed by add(): what a memory of answers
  /// derived from this tuning is keyed by (an address can be reused by a later tuning, a serial
  /// cannot).
  std::uint64_t serial() const { return serial_; }
  const CacheSizes& caches() const { return caches_; }
  std::size_t size() const;

 private:
  struct LogTime {
    TuningChoice choice;
    double log_seconds = 0;
    double log_median = 0;
  };
  struct Entry {
    TuningClass cls;
    TuningChoice choice;
    double log_bytes = 0;            // log(cls.working_set_bytes) where it is > 0
    std::vector<LogTime> log_times;  // the candidates' times, for the interpolation
  };
  static std::optional<TuningChoice> between(const Entry& below, const Entry& above,
                                             double working_set_bytes);
  std::optional<TuningChoice> search(BatchedFamily family, DType dtype, int item_dim,
                                     double working_set_bytes, int threads) const;
  /// A number no other AutoTuning of this process has: the key of the per-thread memory of lookup()
  /// (an address can be reused by a later tuning, a serial cannot); renewed by add().
  static std::uint64_t next_serial();
  // One bucket per (family, memory level): Auto looks a class up on every batched call, and a
  // call only ever needs the classes of its own family and level.
  static constexpr int kLevels = 4;
  static std::size_t bucket(BatchedFamily family, MemoryLevel level) {
    return static_cast<std::size_t>(family) * kLevels + static_cast<std::size_t>(level);
  }
  std::string id_;
  CacheSizes caches_;
  std::uint64_t serial_;
  std::array<std::vector<Entry>, 2 * kLevels> buckets_;
  std::vector<std::pair<int, double>> direct_contraction_;  // (threads, muladds), ascending threads
};

}  // namespace tfbench::ops
