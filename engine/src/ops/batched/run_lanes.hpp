#pragma once
// Runs a chunk functor over the items of a batch: inline on the caller (one lane on a host space, so
// no parallel region is opened), one contiguous chunk per lane in an OpenMP region of its own on
// Kokkos::OpenMP, or one chunk per lane in a Kokkos parallel_for on any other space.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "fan_out_check.hpp"
#include "item_batch.hpp"
#include "lane_balance.hpp"

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace tfbench::impl::batched {

template <class Space>
constexpr bool is_host_space() {
  return std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value;
}

template <class Space>
constexpr bool is_openmp_space() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return std::is_same<Space, Kokkos::OpenMP>::value;
#else
  return false;
#endif
}

/// Whether lanes on Kokkos::OpenMP open their OpenMP region themselves. Kokkos's ParallelFor costs
/// 0.45-0.6 us more per region than a bare `omp parallel` on the same pool (2 threads, Xeon VM: 1.80 us
/// with Kokkos 3.4.1, 1.95 with 4.6.99, 1.35 bare), 1-3% of a 512-item batch of 16 x 16 items and
/// more of smaller ones, where the peers' `omp parallel for` pays 1.5. A loaded Kokkos Tools library
/// still sees every region: the lanes go through Kokkos then.
inline bool own_openmp_region() {
  return !Kokkos::Tools::profileLibraryLoaded();
}

/// Whether openmp_lanes would run each of `lanes` lanes on a thread of its own, lane 0 on the caller.
inline bool one_thread_per_lane(const int lanes, const int pool) {
#if defined(KOKKOS_ENABLE_OPENMP)
  return omp_get_level() == 0 && lanes <= pool;
#else
  (void)lanes;
  (void)pool;
  return false;
#endif
}

/// lane_fn(lane) for each of `lanes` lanes in one OpenMP region of at most `pool` threads (Kokkos's
/// pool: no thread beyond it), lane i on thread i mod the team (every lane runs on a smaller team
/// too); inside a parallel region all lanes run on the calling thread, as Kokkos runs a nested
/// parallel_for.
template <class LaneFn>
void openmp_lanes(const int lanes, const int pool, const LaneFn& lane_fn) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (omp_get_level() == 0) {  // omp_in_parallel() is false in a team of one
    [[maybe_unused]] const int team = lanes < pool ? lanes : (pool > 1 ? pool : 1);  // used by the pragma
#pragma omp parallel num_threads(team)
    {
      const int stride = omp_get_num_threads();
      for (int lane = omp_get_thread_num(); lane < lanes; lane += stride) lane_fn(lane);
    }
    return;
  }
#endif
  for (int lane = 0; lane < lanes; ++lane) lane_fn(lane);
}

/// openmp_lanes over the chunks of a learned split (lane_balance.hpp): chunk_fn(lane, begin, end).
/// `shape` keys what is learned: batches of one shape, count and lane count share a split. `checked`
/// (Auto chose the fan-out): the fan-out check may run the whole batch as chunk_fn(0, 0, count) on the
/// calling thread instead.
template <class ChunkFn>
LanesRan balanced_openmp_lanes(const int lanes, const int pool, const std::int64_t count,
                               const std::uint64_t shape, const bool checked, const ChunkFn& chunk_fn) {
  const bool own_threads = one_thread_per_lane(lanes, pool);
  LaneBalance balance(shape, count, lanes, own_threads);
  const auto fan_out = [&] {
    openmp_lanes(lanes, pool, [&](const int lane) {
      balance.lane_started(lane);
      std::int64_t begin = 0, end = 0;
      balance.split().chunk(lane, begin, end);
      chunk_fn(lane, begin, end);
      balance.lane_ended(lane);
    });
    balance.learn();
    return balance.split().first_items();
  };
  // Checked where each lane has a thread of its own (a smaller team or a nested region is not the
  // fan-out Auto chose).
  if (!checked || !own_threads) return {fan_out(), false};
  FanOutCheck check(balance.key());
  if (!check.timed()) {  // well ahead: neither the check nor the split times this one
    balance.leave_untimed();
    const std::int64_t first = fan_out();
    check.ran_untimed_fan_out();
    return {first, false};
  }
  const std::int64_t start = lane_ticks();
  if (!check.fan_out()) {
    chunk_fn(0, 0, count);
    check.ran_sequential(lane_ticks() - start);
    return {count, true};
  }
  const std::int64_t first = fan_out();
  check.ran_fan_out(lane_ticks() - start);
  return {first, false};
}

/// The lanes a batch of `count` items runs in, between 1 and `count`: the route's on a host
/// space; on a device space one item a lane (a device thread each), whatever the strategy: a route's
/// lanes count host threads, and a device context has one, which would run the whole batch on one
/// device thread. `lane_scratch_bytes` (scratch each lane needs, 0 for none) caps them so that the
/// scratch stays within kMaxDeviceScratchBytes; the lanes then take contiguous chunks of items.
inline constexpr std::int64_t kMaxDeviceScratchBytes = std::int64_t(256) << 20;
inline int batch_lanes(const bool host_space, const int route_lanes, const std::int64_t count,
                       const std::int64_t lane_scratch_bytes = 0) {
  std::int64_t lanes = host_space ? route_lanes : count;
  if (lane_scratch_bytes > 0)
    lanes = std::min(lanes, std::max<std::int64_t>(1, kMaxDeviceScratchBytes / lane_scratch_bytes));
  const std::int64_t most = std::clamp<std::int64_t>(count, 1, std::numeric_limits<int>::max());
  return static_cast<int>(std::clamp<std::int64_t>(lanes, 1, most));
}

/// chunk(lane, begin, end) for `lanes` contiguous chunks of [0, count) on `space`. With lanes <= 1
/// on a host space the chunk runs on the calling thread (an OpenMP region costs 0.5-1.7 us). In the
/// engine's own OpenMP region the chunks follow the split learned for `shape` (balanced_openmp_lanes),
/// and a `checked` fan-out may run on the calling thread instead; elsewhere they are even.
template <class Space, class Chunk>
LanesRan run_lanes(const char* label, const Space& space, int lanes, const std::int64_t count,
                   const std::uint64_t shape, const bool checked, const Chunk& chunk) {
  if (count <= 0) return {};
  if (lanes > count) lanes = static_cast<int>(count);
  if (lanes <= 1) {
    if constexpr (is_host_space<Space>()) {
      chunk(0, 0, count);
    } else {
      Kokkos::parallel_for(
          label, Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) { chunk(0, 0, count); });
    }
    return {count, false};
  }
  const Kokkos::RangePolicy<Space> policy(space, 0, lanes);
  if constexpr (is_host_space<Space>()) {
    if constexpr (is_openmp_space<Space>()) {
      if (own_openmp_region()) {
        return balanced_openmp_lanes(lanes, space.concurrency(), count, shape, checked, chunk);
      }
    }
    // A host lambda, not KOKKOS_LAMBDA: under nvcc that is __host__ __device__, and the host spaces'
    // chunks (libxsmm's, the vector kernels) are host functions it may not call.
    Kokkos::parallel_for(label, policy, [=](const int lane) {
      std::int64_t begin = 0, end = 0;
      lane_chunk(count, lanes, lane, begin, end);
      chunk(lane, begin, end);
    });
  } else {
    Kokkos::parallel_for(
        label, policy, KOKKOS_LAMBDA(const int lane) {
          std::int64_t begin = 0, end = 0;
          lane_chunk(count, lanes, lane, begin, end);
          chunk(lane, begin, end);
        });
  }
  return {LaneSplit{count, lanes, 0}.first_items(), false};
}

}  // namespace tfbench::impl::batched
