#pragma once
// Runs a chunk functor over the items of a batch: inline on the caller (one lane on a host space, so
// no parallel region is opened), or one contiguous chunk per lane in a Kokkos parallel_for.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "item_batch.hpp"

namespace tfbench::impl::batched {

template <class Space>
constexpr bool is_host_space() {
  return std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value;
}

/// chunk(lane, begin, end) for `lanes` contiguous chunks of [0, count) on `space`. With lanes <= 1
/// on a host space the chunk runs on the calling thread (an OpenMP region costs 0.5-1.7 us).
template <class Space, class Chunk>
void run_lanes(const char* label, const Space& space, int lanes, const std::int64_t count,
               const Chunk& chunk) {
  if (count <= 0) return;
  if (lanes > count) lanes = static_cast<int>(count);
  if (lanes <= 1) {
    if constexpr (is_host_space<Space>()) {
      chunk(0, 0, count);
    } else {
      Kokkos::parallel_for(
          label, Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) { chunk(0, 0, count); });
    }
    return;
  }
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Space>(space, 0, lanes), KOKKOS_LAMBDA(const int lane) {
        std::int64_t begin = 0, end = 0;
        lane_chunk(count, lanes, lane, begin, end);
        chunk(lane, begin, end);
      });
}

}  // namespace tfbench::impl::batched
