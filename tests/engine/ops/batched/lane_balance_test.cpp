// The lanes' learned split (ops/batched/lane_balance.hpp): chunks that cover a batch once whatever
// the lead, the update rule's direction and bounds, and a region whose second lane is slower moving
// items to lane 0 over calls.

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "ops/batched/lane_balance.hpp"
#include "ops/batched/run_lanes.hpp"

using namespace tfbench::impl;
using batched::kLeadScale;
using batched::LaneSplit;

TEST_CASE("a lane split covers the batch once, lane 0 taking its lead", "[batched][lanes]") {
  for (const std::int64_t count : {2, 3, 7, 100, 512, 1001}) {
    for (const int lanes : {2, 3, 4, 7}) {
      if (lanes > count) continue;
      const std::int64_t bound = batched::max_lead(count, lanes);
      for (const std::int64_t lead : {-bound, std::int64_t(-1), std::int64_t(0), std::int64_t(1), bound}) {
        if (lead < -bound || lead > bound) continue;
        INFO("count " << count << " lanes " << lanes << " lead " << lead);
        const LaneSplit split{count, lanes, lead};
        std::int64_t covered = 0, smallest = count, largest = 0;
        for (int lane = 0; lane < lanes; ++lane) {
          std::int64_t begin = -1, end = -1;
          split.chunk(lane, begin, end);
          CHECK(begin == covered);
          CHECK(end >= begin);
          if (lane == 0) {
            CHECK(end - begin == (count + lanes - 1) / lanes + lead);
          } else {
            smallest = std::min(smallest, end - begin);
            largest = std::max(largest, end - begin);
          }
          covered = end;
        }
        CHECK(covered == count);
        CHECK(largest - smallest <= 1);  // the other lanes share the rest evenly
        if (lead == 0) {                 // no lead: the even chunks of lane_chunk
          for (int lane = 0; lane < lanes; ++lane) {
            std::int64_t b0, e0, b1, e1;
            split.chunk(lane, b0, e0);
            batched::lane_chunk(count, lanes, lane, b1, e1);
            CHECK(b0 == b1);
            CHECK(e0 == e1);
          }
        }
      }
    }
  }
  CHECK(batched::max_lead(512, 2) == 128);  // half an even share: every lane keeps work
  CHECK(batched::max_lead(3, 2) == 0);
  CHECK(batched::max_lead(100, 1) == 0);
}

TEST_CASE("the learned lead moves an eighth of the imbalance, bounded per call and in all",
          "[batched][lanes]") {
  const LaneSplit split{512, 2, 0};
  // Lane 0 ran 256 items in 25.6 us (10 ns each) and the other lane ended 8 us later: 800 items'
  // time, 40 items to balance two lanes; an eighth of them moves, 5 items.
  CHECK(batched::next_lead_q(split, 0, 25600, 8000) == 5 * kLeadScale);
  CHECK(batched::next_lead_q(split, 0, 25600, -8000) == -5 * kLeadScale);
  // At most a thirty-second of the even share (8 items) a call: 20 us late would move 12.5.
  CHECK(batched::next_lead_q(split, 0, 25600, 20000) == 8 * kLeadScale);
  CHECK(batched::next_lead_q(split, 0, 25600, -20000) == -8 * kLeadScale);
  // A small imbalance moves a fraction of an item, kept in sixteenths: 800 ns is 4 items to balance,
  // half an item this call.
  CHECK(batched::next_lead_q(split, 0, 25600, 800) == kLeadScale / 2);
  CHECK(batched::next_lead_q(split, 3 * kLeadScale, 25600, 0) == 3 * kLeadScale);  // balanced: kept
  // Never beyond max_lead, in either direction.
  const std::int64_t bound_q = batched::max_lead(512, 2) * kLeadScale;
  CHECK(batched::next_lead_q(split, bound_q, 25600, 8000) == bound_q);
  CHECK(batched::next_lead_q(split, -bound_q, 25600, -8000) == -bound_q);
  CHECK(batched::next_lead_q(split, 10 * bound_q, 25600, 0) == bound_q);  // a stale lead is clamped
  // Nothing timed (lane 0 ran no time): the lead stays.
  CHECK(batched::next_lead_q(split, 5, 0, 8000) == 5);
  // Three lanes: moving x items to lane 0 takes x/2 from each other lane, so balancing moves two
  // thirds of the late time's items: 300 ns at 0.1 items/ns, 20 items, an eighth 2.5.
  const LaneSplit three{3000, 3, 0};
  CHECK(batched::next_lead_q(three, 0, 10000, 300) == 40);
}

#if defined(KOKKOS_ENABLE_OPENMP)
namespace {

/// Spins for `ns` nanoseconds (a lane's per-item cost that the test sets, not the kernel's).
void spin_for(std::int64_t ns) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

/// Items of 2 us on lane 0 and 6 us on the others, each item counted as it runs.
struct UnevenChunk {
  std::atomic<int>* runs;
  std::int64_t* first_items;
  void operator()(const int lane, const std::int64_t begin, const std::int64_t end) const {
    for (std::int64_t i = begin; i < end; ++i) {
      spin_for(lane == 0 ? 2000 : 6000);
      runs[i].fetch_add(1, std::memory_order_relaxed);
    }
    if (lane == 0) *first_items = end - begin;
  }
};

}  // namespace

TEST_CASE("a region whose other lane is slower learns to give lane 0 more items", "[batched][lanes]") {
  const int pool = Kokkos::OpenMP().concurrency();
  if (pool < 2) {
    WARN("the test's OpenMP pool has one thread: no region to balance");
    return;
  }
  constexpr std::int64_t count = 64;
  const std::uint64_t shape = batched::shape_key({0x7e57, 1});
  std::vector<std::int64_t> firsts;
  for (int call = 0; call < 40; ++call) {
    std::vector<std::atomic<int>> runs(count);
    std::int64_t first = 0;
    batched::run_lanes("tfbench::tests::uneven_lanes", Kokkos::OpenMP(), 2, count, shape,
                       UnevenChunk{runs.data(), &first});
    for (std::int64_t i = 0; i < count; ++i) REQUIRE(runs[i].load() == 1);  // every item once, every call
    firsts.push_back(first);
  }
  // Balanced, lane 0 would run 48 of the 64 items (2 us against 6); the split starts even (32) and
  // moves at most one item a call, by an eighth of the imbalance, so 40 calls get well past even.
  CHECK(firsts.front() == 32);
  CHECK(firsts.back() >= 40);
  CHECK(firsts.back() <= 48);  // max_lead: 16 items beyond the even share
  // Another shape of the same count and lanes has learned nothing: its split is even.
  std::vector<std::atomic<int>> runs(count);
  std::int64_t first = 0;
  batched::run_lanes("tfbench::tests::uneven_lanes", Kokkos::OpenMP(), 2, count,
                     batched::shape_key({0x7e57, 2}), UnevenChunk{runs.data(), &first});
  CHECK(first == 32);
}
#endif
