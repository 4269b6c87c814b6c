// Lookup of Auto's measured choices (tfbench/engine/ops/batched/auto_tuning.hpp).

#include "tfbench/engine/ops/batched/auto_tuning.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tfbench::ops {
namespace {

/// larger / smaller of the two sizes (>= 1; |log| of their ratio, without a log); a class measured
/// at no size (0) or a call of unknown size is as far as can be.
double ratio_to(double measured, double asked) {
  if (!(measured > 0) || !(asked > 0)) return std::numeric_limits<double>::infinity();
  return measured > asked ? measured / asked : asked / measured;
}

}  // namespace

const char* name(MemoryLevel level) {
  switch (level) {
    case MemoryLevel::L1:
      return "l1";
    case MemoryLevel::L2:
      return "l2";
    case MemoryLevel::LLC:
      return "llc";
    case MemoryLevel::DRAM:
      return "dram";
  }
  return "?";
}

std::optional<MemoryLevel> parse_memory_level(std::string_view text) {
  for (MemoryLevel level : {MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::LLC, MemoryLevel::DRAM}) {
    if (text == name(level)) return level;
  }
  return std::nullopt;
}

MemoryLevel memory_level(double working_set_bytes, const CacheSizes& caches) {
  if (caches.l1_bytes > 0 && working_set_bytes <= caches.l1_bytes) return MemoryLevel::L1;
  if (caches.l2_bytes > 0 && working_set_bytes <= caches.l2_bytes) return MemoryLevel::L2;
  if (caches.llc_bytes > 0 && working_set_bytes <= caches.llc_bytes) return MemoryLevel::LLC;
  return MemoryLevel::DRAM;
}

std::string describe(const TuningChoice& choice) {
  return std::string(name(choice.provider)) + (choice.prefetch.value_or(false) ? "+prefetch" : "") +
         (choice.streaming_stores.value_or(false) ? "+nt-stores" : "") +
         (choice.narrow_vectors.value_or(false) ? "+256-bit" : "") + "/" +
         (choice.strategy ? tfbench::name(*choice.strategy) : "auto");
}

CacheSizes caches_for_threads(const CacheSizes& caches, int threads) {
  const double t = std::max(threads, 1);
  return {caches.l1_bytes * t, caches.l2_bytes * t, caches.llc_bytes};
}

std::optional<std::size_t> choose_measured(const std::vector<TunedTime>& times) {
  const auto timed = [](const TunedTime& x) { return x.seconds > 0 && std::isfinite(x.seconds); };
  std::vector<bool> aside(times.size(), false);
  for (;;) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (!aside[i] && timed(times[i]) && (!best || times[i].seconds < times[*best].seconds)) best = i;
    }
    if (!best) return std::nullopt;
    const TunedTime& fastest = times[*best];
    if (!fastest.choice.streaming_stores.value_or(false)) return best;
    const double spread = std::max(fastest.seconds, fastest.median_seconds);
    const bool twin_within = std::any_of(times.begin(), times.end(), [&](const TunedTime& x) {
      return timed(x) && !x.choice.streaming_stores.value_or(false) &&
             x.choice.provider == fastest.choice.provider && x.choice.strategy == fastest.choice.strategy &&
             x.choice.prefetch == fastest.choice.prefetch &&
             x.choice.narrow_vectors == fastest.choice.narrow_vectors && x.seconds <= spread;
    });
    if (!twin_within) return best;
    aside[*best] = true;  // and the fastest of the rest, its twin among them, decides
  }
}

std::uint64_t AutoTuning::next_serial() {
  static std::atomic<std::uint64_t> serial{0};
  return ++serial;
}

void AutoTuning::add(const TuningClass& cls, const TuningChoice& choice, std::vector<TunedTime> times) {
  serial_ = next_serial();  // what a thread remembers of the old classes no longer answers
  Entry entry{cls, choice, cls.working_set_bytes > 0 ? std::log(cls.working_set_bytes) : 0.0, {}};
  for (TunedTime& t : times) {
    if (!(t.seconds > 0) || !std::isfinite(t.seconds)) continue;
    const double median =
        t.median_seconds >= t.seconds && std::isfinite(t.median_seconds) ? t.median_seconds : t.seconds;
    entry.log_times.push_back({t.choice, std::log(t.seconds), std::log(median)});
  }
  std::vector<Entry>& entries = buckets_[bucket(cls.family, cls.level)];
  for (Entry& e : entries) {
    if (e.cls.dtype == cls.dtype && e.cls.item_dim == cls.item_dim && e.cls.threads == cls.threads &&
        e.cls.working_set_bytes == cls.working_set_bytes) {
      e = std::move(entry);
      return;
    }
  }
  // Kept in lookup order: by dtype, thread count descending, item size ascending, bytes ascending.
  const auto before = [](const TuningClass& x, const TuningClass& y) {
    if (x.dtype != y.dtype) return x.dtype < y.dtype;
    if (x.threads != y.threads) return x.threads > y.threads;
    if (x.item_dim != y.item_dim) return x.item_dim < y.item_dim;
    return x.working_set_bytes < y.working_set_bytes;
  };
  const auto at =
      std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return before(cls, e.cls); });
  entries.insert(at, std::move(entry));
}

std::optional<TuningChoice> AutoTuning::between(const Entry& below, const Entry& above,
                                                double working_set_bytes) {
  // Where between the two sizes the problem lies, 0 at `below` and 1 at `above`, on a log scale.
  const double t = (std::log(working_set_bytes) - below.log_bytes) / (above.log_bytes - below.log_bytes);
  // Each candidate both classes measured, its fastest round and median interpolated; then the rule
  // of a class (choose_measured), so that streaming stores need the same margin here as there.
  std::vector<TunedTime> estimates;
  for (const LogTime& a : below.log_times) {
    for (const LogTime& b : above.log_times) {
      if (a.choice != b.choice) continue;
      estimates.push_back({a.choice, std::exp((1.0 - t) * a.log_seconds + t * b.log_seconds),
                           std::exp((1.0 - t) * a.log_median + t * b.log_median)});
    }
  }
  const auto chosen = choose_measured(estimates);
  if (!chosen) return std::nullopt;
  return estimates[*chosen].choice;
}

std::size_t AutoTuning::size() const {
  std::size_t n = 0;
  for (const auto& entries : buckets_) n += entries.size();
  return n;
}

std::optional<TuningChoice> AutoTuning::lookup(BatchedFamily family, DType dtype, int item_dim,
                                               double working_set_bytes, int threads) const {
  struct Remembered {
    std::uint64_t serial = 0;  // 0: nothing remembered (serials start at 1)
    BatchedFamily family;
    DType dtype;
    int item_dim, threads;
    double bytes;
    std::optional<TuningChoice> answer;
  };
  thread_local Remembered last;
  if (last.serial == serial_ && last.family == family && last.dtype == dtype && last.item_dim == item_dim &&
      last.threads == threads && last.bytes == working_set_bytes)
    return last.answer;
  last = {serial_,
          family,
          dtype,
          item_dim,
          threads,
          working_set_bytes,
          search(family, dtype, item_dim, working_set_bytes, threads)};
  return last.answer;
}

std::optional<TuningChoice> AutoTuning::search(BatchedFamily family, DType dtype, int item_dim,
                                               double working_set_bytes, int threads) const {
  if (item_dim <= 0) return std::nullopt;
  const MemoryLevel level = memory_level(working_set_bytes, caches_for_threads(caches_, threads));
  const std::vector<Entry>& entries = buckets_[bucket(family, level)];
  // Thread count first: the largest measured count not above `threads`, else the smallest measured.
  // The entries are ordered (add()): the first of the dtype with a count not above `threads` has it,
  // else the last of the dtype has the smallest.
  int best_threads = -1;
  for (const Entry& e : entries) {
    if (e.cls.dtype != dtype) continue;
    best_threads = e.cls.threads;
    if (e.cls.threads <= threads) break;
  }
  if (best_threads < 0) return std::nullopt;
  // Then the nearest measured item size on a log scale, no further than a factor of two away: a
  // decision measured at n = 8 says nothing about n = 64. |log2(measured / asked)| compares as the
  // ratio larger / smaller of the two sizes, and ratios compare exactly by cross-multiplying (no log2
  // on a path every batched call takes). Sizes ascend, so a tie goes to the smaller size.
  const Entry* nearest = nullptr;
  std::int64_t near_hi = 0, near_lo = 1;  // the nearest's ratio near_hi / near_lo
  for (const Entry& e : entries) {
    const TuningClass& c = e.cls;
    if (c.dtype != dtype || c.threads != best_threads || c.item_dim <= 0) continue;
    if (c.item_dim > 2 * std::int64_t(item_dim)) break;  // this and every later size is too far
    if (nearest != nullptr && c.item_dim == nearest->cls.item_dim) continue;  // its first entry stands
    const std::int64_t hi = std::max(c.item_dim, item_dim), lo = std::min(c.item_dim, item_dim);
    const bool nearer = nearest == nullptr ? hi <= 2 * lo : hi * near_lo < near_hi * lo;
    if (nearer) {
      near_hi = hi;
      near_lo = lo;
      nearest = &e;
    }
  }
  if (nearest == nullptr) return std::nullopt;
  // Last, of that item size's classes (adjacent, by bytes ascending), the one measured nearest to the
  // working set on a log scale; a class without bytes matches any size, but loses to one with them.
  // Two classes measured on either side of the working set interpolate between them: the fastest
  // candidate can change inside a level (OpenBLAS per item at 5.4 MiB, libxsmm at 39 MiB on the Xeon,
  // both within a few percent at 12 MiB), and the nearest class alone lets that noise decide.
  const Entry* end = entries.data() + entries.size();
  const Entry* chosen = nearest;
  const Entry* below = nullptr;
  const Entry* above = nullptr;
  double chosen_ratio = ratio_to(nearest->cls.working_set_bytes, working_set_bytes);
  for (const Entry* e = nearest; e != end && e->cls.item_dim == nearest->cls.item_dim &&
                                 e->cls.threads == best_threads && e->cls.dtype == dtype;
       ++e) {
    const double bytes = e->cls.working_set_bytes;
    if (bytes > 0 && bytes < working_set_bytes) below = e;
    if (bytes > working_set_bytes && above == nullptr) above = e;
    const double r = ratio_to(bytes, working_set_bytes);
    if (r < chosen_ratio) {
      chosen_ratio = r;
      chosen = e;
    }
  }
  if (below != nullptr && above != nullptr && chosen_ratio > 1.0) {
    if (auto interpolated = between(*below, *above, working_set_bytes)) return interpolated;
  }
  return chosen->choice;
}

void AutoTuning::set_direct_contraction(int threads, double muladds) {
  auto at = direct_contraction_.begin();
  while (at != direct_contraction_.end() && at->first < threads) ++at;
  if (at != direct_contraction_.end() && at->first == threads)
    at->second = muladds;
  else
    direct_contraction_.insert(at, {threads, muladds});
}

std::optional<double> AutoTuning::direct_contraction_muladds(int threads) const {
  if (direct_contraction_.empty()) return std::nullopt;
  double found =
      direct_contraction_.front().second;  // the smallest thread count, else the largest <= threads
  for (const auto& [t, muladds] : direct_contraction_)
    if (t <= threads) found = muladds;
  return found;
}

}  // namespace tfbench::ops
