// Lookup of Auto's measured choices (tfbench/engine/ops/batched/auto_tuning.hpp).

#include "tfbench/engine/ops/batched/auto_tuning.hpp"

#include <algorithm>
#include <cstdint>

namespace tfbench::ops {

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

void AutoTuning::add(const TuningClass& cls, const TuningChoice& choice) {
  std::vector<Entry>& entries = buckets_[bucket(cls.family, cls.level)];
  for (Entry& e : entries) {
    if (e.cls.dtype == cls.dtype && e.cls.item_dim == cls.item_dim && e.cls.threads == cls.threads) {
      e.choice = choice;
      return;
    }
  }
  entries.push_back({cls, choice});
}

std::size_t AutoTuning::size() const {
  std::size_t n = 0;
  for (const auto& entries : buckets_) n += entries.size();
  return n;
}

std::optional<TuningChoice> AutoTuning::lookup(BatchedFamily family, DType dtype, int item_dim,
                                               double working_set_bytes, int threads) const {
  if (item_dim <= 0) return std::nullopt;
  const std::vector<Entry>& entries = buckets_[bucket(family, memory_level(working_set_bytes, caches_))];
  // Thread count first: the largest measured count not above `threads`, else the smallest measured.
  int best_threads = -1, smallest_threads = -1;
  for (const Entry& e : entries) {
    const TuningClass& c = e.cls;
    if (c.dtype != dtype) continue;
    if (smallest_threads < 0 || c.threads < smallest_threads) smallest_threads = c.threads;
    if (c.threads <= threads && c.threads > best_threads) best_threads = c.threads;
  }
  if (best_threads < 0) best_threads = smallest_threads;
  if (best_threads < 0) return std::nullopt;
  // Then the nearest measured item size on a log scale, no further than a factor of two away: a
  // decision measured at n = 8 says nothing about n = 64. |log2(measured / asked)| compares as the
  // ratio larger / smaller of the two sizes, and ratios compare exactly by cross-multiplying (no log2
  // on a path every batched call takes).
  const Entry* nearest = nullptr;
  std::int64_t near_hi = 0, near_lo = 1;  // the nearest's ratio near_hi / near_lo
  for (const Entry& e : entries) {
    const TuningClass& c = e.cls;
    if (c.dtype != dtype || c.threads != best_threads || c.item_dim <= 0) continue;
    const std::int64_t hi = std::max(c.item_dim, item_dim), lo = std::min(c.item_dim, item_dim);
    const bool nearer = nearest == nullptr ? hi <= 2 * lo : hi * near_lo < near_hi * lo;
    if (nearer) {
      near_hi = hi;
      near_lo = lo;
      nearest = &e;
    }
  }
  if (nearest == nullptr) return std::nullopt;
  return nearest->choice;
}

}  // namespace tfbench::ops
