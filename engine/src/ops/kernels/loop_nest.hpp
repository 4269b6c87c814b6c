#pragma once
// Index math shared by the strided kernels: a loop nest over the output's logical shape with the
// element strides of every operand (operand 0 is the written one). Built once per operation on the
// host: extent-1 axes dropped, axes ordered by the output's stride so that writes stream, adjacent
// axes merged wherever every operand allows it. At most kKernelRank axes reach the device functor
// (a trivially copyable capture); any further, outermost axes become a host loop of launches.

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <type_traits>

#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

inline constexpr int kKernelRank = 8;

template <int NOps>
struct KernelNest {
  int rank = 0;
  index_t extent[kKernelRank] = {};
  index_t stride[NOps][kKernelRank] = {};

  /// Element offsets of every operand at a column-major flat index of the nest. A division per axis
  /// but the last (a flat index inside the nest is below the last axis's extent there): kernels
  /// call this once per work item and step through the rest with a NestCursor.
  KOKKOS_INLINE_FUNCTION void offsets(index_t flat, index_t (&off)[NOps]) const {
    index_t idx[kKernelRank];
    decompose(flat, idx, off);
  }
  /// offsets(), keeping the index along every axis (the cursor's starting point).
  KOKKOS_INLINE_FUNCTION void decompose(index_t flat, index_t (&idx)[kKernelRank],
                                        index_t (&off)[NOps]) const {
    for (int k = 0; k < NOps; ++k) off[k] = 0;
    for (int d = 0; d < rank; ++d) {
      index_t i = flat;
      if (d + 1 < rank) {
        i = flat % extent[d];
        flat /= extent[d];
      }
      idx[d] = i;
      for (int k = 0; k < NOps; ++k) off[k] += i * stride[k][d];
    }
  }
};

/// Walks a KernelNest in its column-major order with additions only: seek() once (a division per
/// axis), then step() to the next flat index. Integer division costs 10-40 cycles where a step costs
/// one or two, and the strided kernels used to divide per row or per element: a 256-element strided
/// copy (a contraction's operand pack) spent most of its time there.
template <int NOps>
struct NestCursor {
  index_t idx[kKernelRank] = {};
  index_t off[NOps] = {};

  KOKKOS_INLINE_FUNCTION void seek(const KernelNest<NOps>& nest, index_t flat) {
    nest.decompose(flat, idx, off);
  }
  KOKKOS_INLINE_FUNCTION void step(const KernelNest<NOps>& nest) {
    for (int d = 0; d < nest.rank; ++d) {
      for (int k = 0; k < NOps; ++k) off[k] += nest.stride[k][d];
      if (++idx[d] < nest.extent[d]) return;
      for (int k = 0; k < NOps; ++k) off[k] -= nest.stride[k][d] * nest.extent[d];
      idx[d] = 0;
    }
  }
};

/// Calls visit(offsets) for each flat index of work item w's run: `chunk` consecutive indices of the
/// nest's `total`, the first found by division, the rest by a NestCursor's steps.
template <int NOps, class Visit>
KOKKOS_INLINE_FUNCTION void walk_run(const KernelNest<NOps>& nest, index_t total, index_t chunk, index_t w,
                                     Visit&& visit) {
  const index_t first = w * chunk;
  const index_t last = first + chunk < total ? first + chunk : total;
  NestCursor<NOps> at;
  at.seek(nest, first);
  for (index_t i = first; i < last; ++i) {
    visit(at.off);
    at.step(nest);
  }
}

/// Work items per thread when a kernel walks consecutive indices per work item: enough for the
/// host schedule to even out uneven threads, few enough that the one seek per item is noise.
inline constexpr index_t kWalkItemsPerThread = 4;

/// Consecutive flat indices one work item of a `total`-index loop walks on `space`: on a host space
/// its share of kWalkItemsPerThread items per thread (everything on one thread), on a device one (a
/// thread per index keeps neighbouring threads on neighbouring addresses).
template <class Space>
index_t walk_chunk(const Space& space, index_t total) {
  if (total <= 0) return 1;
  if (!std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) return 1;
  const index_t threads = static_cast<index_t>(space.concurrency());
  if (threads <= 1) return total;
  const index_t items = kWalkItemsPerThread * threads;
  return (total + items - 1) / items;
}
/// Work items of a walk in chunks of `chunk` indices.
KOKKOS_INLINE_FUNCTION index_t walk_items(index_t total, index_t chunk) {
  return (total + chunk - 1) / chunk;
}

template <int NOps>
struct LoopPlan {
  KernelNest<NOps> inner;
  index_t inner_total = 1;
  index_t total = 1;  // 0 when the shape is empty
  DimList outer_extent;
  StrideList outer_stride[NOps];

  /// True when every operand runs with unit stride over one merged axis.
  bool contiguous() const {
    if (inner.rank != 1 || !outer_extent.empty()) return inner.rank == 0 && outer_extent.empty();
    for (int k = 0; k < NOps; ++k)
      if (inner.stride[k][0] != 1) return false;
    return true;
  }

  /// Calls f(offsets[NOps]) once per outer multi-index (once when there is no outer loop).
  template <class F>
  void for_each_outer(F&& f) const {
    index_t base[NOps] = {};
    if (total == 0) return;
    const int r = static_cast<int>(outer_extent.size());
    if (r == 0) {
      f(base);
      return;
    }
    DimList idx;
    idx.resize(r, 0);
    while (true) {
      f(base);
      int d = 0;
      for (; d < r; ++d) {
        ++idx[d];
        for (int k = 0; k < NOps; ++k) base[k] += outer_stride[k][d];
        if (idx[d] < outer_extent[d]) break;
        for (int k = 0; k < NOps; ++k) base[k] -= outer_stride[k][d] * outer_extent[d];
        idx[d] = 0;
      }
      if (d == r) return;
    }
  }
};

/// Plans the loops over `shape` for NOps operands whose strides are strides[k][axis].
template <int NOps>
LoopPlan<NOps> plan_loops(const index_t* shape, int rank, const index_t* const (&strides)[NOps]) {
  LoopPlan<NOps> plan;
  int axes[kMaxOpRank];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 0) {
      plan.total = 0;
      return plan;
    }
    if (shape[d] != 1) axes[n++] = d;
  }
  // Order by the written operand's stride (insertion sort: ranks are small) so writes stream.
  for (int i = 1; i < n; ++i) {
    const int a = axes[i];
    int j = i - 1;
    while (j >= 0 && std::llabs(strides[0][axes[j]]) > std::llabs(strides[0][a])) {
      axes[j + 1] = axes[j];
      --j;
    }
    axes[j + 1] = a;
  }
  // Merge axis i+1 into i where every operand steps through both as through one.
  DimList ext;
  StrideList st[NOps];
  for (int i = 0; i < n; ++i) {
    const int a = axes[i];
    bool merge = !ext.empty();
    for (int k = 0; k < NOps && merge; ++k) merge = strides[k][a] == st[k].back() * ext.back();
    if (merge) {
      ext.back() *= shape[a];
    } else {
      ext.push_back(shape[a]);
      for (int k = 0; k < NOps; ++k) st[k].push_back(strides[k][a]);
    }
  }
  const int merged = static_cast<int>(ext.size());
  const int inner_rank = merged < kKernelRank ? merged : kKernelRank;
  plan.inner.rank = inner_rank;
  for (int d = 0; d < merged; ++d) {
    plan.total *= ext[d];
    if (d < inner_rank) {
      plan.inner.extent[d] = ext[d];
      plan.inner_total *= ext[d];
      for (int k = 0; k < NOps; ++k) plan.inner.stride[k][d] = st[k][d];
    } else {
      plan.outer_extent.push_back(ext[d]);
      for (int k = 0; k < NOps; ++k) plan.outer_stride[k].push_back(st[k][d]);
    }
  }
  return plan;
}

}  // namespace tfbench::impl
