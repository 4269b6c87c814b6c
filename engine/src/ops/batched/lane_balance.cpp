// Learned lane splits: a small lock-free table of leads, one 64-bit word an entry (a tag from the
// shape, count and lanes in the high 40 bits, the lead in the low 24), so that concurrent regions
// read and write whole entries without a lock. A collision only costs a region its learned split.

#include "lane_balance.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
#include <x86intrin.h>
#endif

#include "../../core/hash_mix.hpp"
#include "item_batch.hpp"

namespace tfbench::impl::batched {

namespace {

constexpr int kTableBits = 8;
constexpr double kGain = 1.0 / 8;
constexpr int kLeadBits = 24;
constexpr std::int64_t kLeadLimit = (std::int64_t(1) << (kLeadBits - 1)) - 1;
constexpr std::uint64_t kLeadMask = (std::uint64_t(1) << kLeadBits) - 1;

std::atomic<std::uint64_t> g_leads[1 << kTableBits];

std::atomic<std::uint64_t>& slot(std::uint64_t key) {
  return g_leads[key & ((1u << kTableBits) - 1)];
}
std::uint64_t tag(std::uint64_t key) {
  return key >> kLeadBits;
}

std::int64_t stored_lead(std::uint64_t key) {
  const std::uint64_t word = slot(key).load(std::memory_order_relaxed);
  if (word == 0 || (word >> kLeadBits) != tag(key)) return 0;
  return static_cast<std::int64_t>(word & kLeadMask) - kLeadLimit;
}

void store_lead(std::uint64_t key, std::int64_t lead) {
  lead = std::clamp(lead, -kLeadLimit, kLeadLimit);
  const std::uint64_t word = (tag(key) << kLeadBits) | static_cast<std::uint64_t>(lead + kLeadLimit);
  slot(key).store(word, std::memory_order_relaxed);
}

}  // namespace

std::int64_t max_lead(const std::int64_t count, const int lanes) {
  if (lanes < 2) return 0;
  return std::min(count / lanes / 2, kLeadLimit / kLeadScale);
}

std::int64_t LaneSplit::first_items() const {
  if (lanes < 2) return count;
  std::int64_t begin = 0, even = 0;
  lane_chunk(count, lanes, 0, begin, even);
  return even + lead;
}

void LaneSplit::chunk(const int lane, std::int64_t& begin, std::int64_t& end) const {
  const std::int64_t first = first_items();
  if (lane == 0) {
    begin = 0;
    end = first;
    return;
  }
  // The other lanes share the rest as lane_chunk shares a batch.
  lane_chunk(count - first, lanes - 1, lane - 1, begin, end);
  begin += first;
  end += first;
}

std::int64_t next_lead_q(const LaneSplit& split, const std::int64_t lead_q, const std::int64_t first_ticks,
                         const std::int64_t late_ticks) {
  const std::int64_t bound_q = max_lead(split.count, split.lanes) * kLeadScale;
  const std::int64_t first = split.first_items();
  if (bound_q == 0 || first <= 0 || first_ticks <= 0) return std::clamp(lead_q, -bound_q, bound_q);
  // Moving x items to lane 0 ends it x/rate later and each other lane x/((lanes-1) rate) earlier.
  const double items_per_tick = static_cast<double>(first) / static_cast<double>(first_ticks);
  const double moved = static_cast<double>(late_ticks) * items_per_tick * (split.lanes - 1) / split.lanes;
  const double limit = std::max<double>(1, static_cast<double>(split.count / split.lanes) / 32);
  const double step = std::clamp(moved * kGain, -limit, limit);
  return std::clamp(lead_q + static_cast<std::int64_t>(std::lround(step * kLeadScale)), -bound_q, bound_q);
}

std::int64_t lane_ticks() {
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
  return static_cast<std::int64_t>(__rdtsc());
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

std::uint64_t lane_key(const std::uint64_t shape, const std::int64_t count, const int lanes) {
  return hash_mix(hash_mix(shape, static_cast<std::uint64_t>(count)), static_cast<std::uint64_t>(lanes));
}

std::uint64_t shape_key(std::initializer_list<std::int64_t> parts) {
  std::uint64_t seed = 0x1a4e;
  for (const std::int64_t part : parts) seed = hash_mix(seed, static_cast<std::uint64_t>(part));
  return seed;
}

LaneBalance::LaneBalance(const std::uint64_t shape, const std::int64_t count, const int lanes,
                         const bool one_thread_per_lane)
    : key_(lane_key(shape, count, lanes)) {
  split_.count = count;
  split_.lanes = lanes;
  timed_ = one_thread_per_lane && lanes >= 2 && lanes <= kMaxLanes && max_lead(count, lanes) > 0;
  if (timed_) {
    const std::int64_t bound_q = max_lead(count, lanes) * kLeadScale;
    lead_q_ = std::clamp(stored_lead(key_), -bound_q, bound_q);
    split_.lead = lead_q_ / kLeadScale;
  }
}

void LaneBalance::lane_started(const int lane) {
  if (timed_ && lane == 0) lane_started(lane, lane_ticks());
}

void LaneBalance::lane_ended(const int lane) {
  if (timed_) lane_ended(lane, lane_ticks());
}

void LaneBalance::lane_started(const int lane, const std::int64_t at) {
  if (timed_ && lane == 0) first_start_.store(at, std::memory_order_relaxed);
}

void LaneBalance::lane_ended(const int lane, const std::int64_t at) {
  if (timed_) ends_[lane].store(at, std::memory_order_release);
}

void LaneBalance::learn() {
  if (!timed_) return;
  const std::int64_t first_end = ends_[0].load(std::memory_order_acquire);
  std::int64_t last_other = std::numeric_limits<std::int64_t>::min();
  for (int lane = 1; lane < split_.lanes; ++lane)
    last_other = std::max(last_other, ends_[lane].load(std::memory_order_acquire));
  const std::int64_t first_ticks = first_end - first_start_.load(std::memory_order_relaxed);
  const std::int64_t lead = next_lead_q(split_, lead_q_, first_ticks, last_other - first_end);
  if (lead != lead_q_) store_lead(key_, lead);
}

}  // namespace tfbench::impl::batched
