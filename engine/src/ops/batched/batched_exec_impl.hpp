#pragma once
// Definitions of the batched route executors (impl/batched_exec.hpp), included by the per-dtype
// translation units that instantiate them for every enabled execution space.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "batched_exec.hpp"
#include "host_providers.hpp"
#include "kokkosbatched_gemm.hpp"
#include "kokkosbatched_solve.hpp"
#include "run_lanes.hpp"
#include "vendor_batched.hpp"

namespace tfbench::impl::batched {

/// chunk(lane, begin, end) -> SingularItems over lanes, merged (a parallel_reduce when lanes > 1).
template <class Chunk>
struct LaneSolveReduce {
  using value_type = SingularItems;
  Chunk chunk;
  std::int64_t count;
  int lanes;
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = SingularItems{}; }
  // Kokkos 3.4 finds only the volatile join; Kokkos 4.0 removed it.
#if KOKKOS_VERSION >= 40000
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    merge(dst, src);
  }
#else
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    merge(dst, src);
  }
#endif
  template <class Dst, class Src>
  KOKKOS_INLINE_FUNCTION static void merge(Dst& dst, const Src& src) {
    if (src.first < dst.first) dst.first = src.first;
    dst.count += src.count;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int lane, value_type& v) const {
    std::int64_t begin = 0, end = 0;
    lane_chunk(count, lanes, lane, begin, end);
    v.merge(chunk(lane, begin, end));
  }
};

template <class Space, class Chunk>
SolveRan run_solve_lanes(const char* label, const Space& space, int lanes, const std::int64_t count,
                         const std::uint64_t shape, const bool checked, const Chunk& chunk) {
  if (count <= 0) return {};
  if (lanes > count) lanes = static_cast<int>(count);
  if (lanes < 1) lanes = 1;
  if (lanes == 1 && is_host_space<Space>()) return {chunk(0, 0, count), {count, false}};
  if constexpr (is_openmp_space<Space>()) {
    if (own_openmp_region()) {
      // Merged as the lanes finish (one uncontended lock per lane): no slot per lane to allocate.
      SolveRan ran;
      std::mutex merging;
      ran.lanes =
          balanced_openmp_lanes(lanes, space.concurrency(), count, shape, checked,
                                [&](const int lane, const std::int64_t begin, const std::int64_t end) {
                                  const SingularItems items = chunk(lane, begin, end);
                                  const std::lock_guard<std::mutex> lock(merging);
                                  ran.singular.merge(items);
                                });
      return ran;
    }
  }
  SolveRan ran;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<Space>(space, 0, lanes),
                          LaneSolveReduce<Chunk>{chunk, count, lanes}, ran.singular);
  ran.lanes = {LaneSplit{count, lanes, 0}.first_items(), false};
  return ran;
}

template <class Space, class T>
bool gemm_provider_applies(const ops::ItemProvider provider, const GemmBatch<T>& g) {
  constexpr bool host = is_host_space<Space>();
  switch (provider) {
    case ops::ItemProvider::Specialized:
      return true;
    case ops::ItemProvider::KokkosBatched:
      return kokkosbatched_applicable(g);
    case ops::ItemProvider::Libxsmm:
      return host && libxsmm_kernel_for(g, streaming_batch(g), false) != nullptr;
    case ops::ItemProvider::Blas:
      return host ? blas_applicable(g) : vendor_items_applicable<Space>(g);
    case ops::ItemProvider::VendorBatched:
      return vendor_batched_applicable<Space>(g);
  }
  return false;
}

template <class T>
bool streams_c_on(const ops::ItemProvider provider, const GemmBatch<T>& g) {
  switch (provider) {
    case ops::ItemProvider::Specialized:
      return specialized_streams_c(g);
    case ops::ItemProvider::Libxsmm:
      if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value)
        return libxsmm_streams_c(g);
      return false;
    default:
      return false;
  }
}

template <class Space, class T>
bool solve_provider_applies(const ops::ItemProvider provider, const SolveBatch<T>& s) {
  switch (provider) {
    case ops::ItemProvider::Specialized:
      return true;
    case ops::ItemProvider::KokkosBatched:
      return kokkosbatched_applicable(s);
    case ops::ItemProvider::Blas:
      return is_host_space<Space>();
    default:
      return false;  // libxsmm has no LU; no vendor batched LU binding on any platform yet
  }
}

template <class Space, class T>
LanesRan execute_gemm(const Space& space, const ItemsRoute& route, const GemmBatch<T>& g) {
  using MemSpace = typename Space::memory_space;
  const std::int64_t count = g.count();
  if (count <= 0 || g.m() == 0 || g.n() == 0) return {count > 0 ? count : 0, false};
  const int lanes =
      batch_lanes(is_host_space<Space>(), route.mode == RouteMode::OuterParallel ? route.lanes : 1, count);
  // What sets an item's cost, for the lanes' learned split and the fan-out check: the route, the
  // dimensions, the layout. Not hashed for one lane (a sixth of a call of two 2 x 2 items).
  const std::uint64_t shape = lanes > 1
                                  ? shape_key({static_cast<std::int64_t>(route.provider), g.m(), g.n(), g.k(),
                                               std::int64_t(sizeof(T)), route.prefetch, route.stream_c,
                                               route.narrow, g.beta == T(0), g.a.bs, g.b.bs, g.c.bs})
                                  : 0;
  const bool checked = route.checked;
  switch (route.provider) {
    case ops::ItemProvider::Specialized:
      return with_specialized_chunk(g, route.stream_c, route.narrow, route.prefetch, [&](const auto& chunk) {
        return run_lanes("tfbench::engine::ops::batched_gemm::specialized", space, lanes, count, shape,
                         checked, chunk);
      });
    case ops::ItemProvider::KokkosBatched:
      return run_lanes("tfbench::engine::ops::batched_gemm::kokkosbatched", space, lanes, count, shape,
                       checked, KokkosBatchedGemmChunk<T, MemSpace>{g});
    case ops::ItemProvider::Libxsmm:
      if constexpr (is_host_space<Space>()) {
        const bool stream_c = route.stream_c && libxsmm_streams_c(g);
        if (const auto kernel = libxsmm_kernel_for(g, route.prefetch, stream_c)) {
          return run_lanes("tfbench::engine::ops::batched_gemm::libxsmm", space, lanes, count, shape, checked,
                           XsmmGemmChunk<T>{g, kernel, route.prefetch, stream_c});
        }
      }
      break;
    case ops::ItemProvider::Blas:
      if constexpr (is_host_space<Space>()) {
        blas_gemm_items(g);
      } else {
        vendor_gemm_items(space, g);
      }
      return {count, false};
    case ops::ItemProvider::VendorBatched:
      vendor_gemm_batched(space, g);
      return {count, false};
  }
  throw std::logic_error("tfbench: batched_gemm route executed with a provider that does not apply");
}

template <class Space, class T>
SolveRan execute_solve(const Space& space, const ItemsRoute& route, const SolveBatch<T>& s) {
  using MemSpace = typename Space::memory_space;
  const std::int64_t count = s.count();
  if (count <= 0 || s.n() == 0) return {{}, {count > 0 ? count : 0, false}};
  // Factor storage for n beyond the local arrays: one n x n slice per lane.
  const bool needs_scratch = s.n() > local_solve_max_n && route.provider != ops::ItemProvider::Blas;
  const int lanes =
      batch_lanes(is_host_space<Space>(), route.mode == RouteMode::OuterParallel ? route.lanes : 1, count,
                  needs_scratch ? std::int64_t(s.n()) * s.n() * std::int64_t(sizeof(T)) : 0);
  Kokkos::View<T*, MemSpace> scratch;
  if (needs_scratch) {
    scratch =
        Kokkos::View<T*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                      "tfbench::engine::ops::batched_solve::factor_scratch"),
                                   std::size_t(lanes) * s.n() * s.n());
  }
  const std::uint64_t shape = lanes > 1 ? shape_key({static_cast<std::int64_t>(route.provider), s.n(),
                                                     s.nrhs(), std::int64_t(sizeof(T)), s.a.bs, s.b.bs})
                                        : 0;
  switch (route.provider) {
    case ops::ItemProvider::Specialized:
      return with_specialized_solve_chunk(s, scratch.data(), [&](const auto& chunk) {
        return run_solve_lanes("tfbench::engine::ops::batched_solve::specialized", space, lanes, count, shape,
                               route.checked, chunk);
      });
    case ops::ItemProvider::KokkosBatched:
      return run_solve_lanes("tfbench::engine::ops::batched_solve::kokkosbatched", space, lanes, count, shape,
                             route.checked, KokkosBatchedSolveChunk<T, MemSpace>{s, scratch.data()});
    case ops::ItemProvider::Blas:
      if constexpr (is_host_space<Space>()) return {lapack_solve_items(s), {count, false}};
      break;
    default:
      break;
  }
  throw std::logic_error("tfbench: batched_solve route executed with a provider that does not apply");
}

}  // namespace tfbench::impl::batched
