#pragma once
// Index math shared by the strided kernels: a loop nest over the output's logical shape with the
// element strides of every operand (operand 0 is the written one). Built once per operation on the
// host: extent-1 axes dropped, axes ordered by the output's stride so that writes stream, adjacent
// axes merged wherever every operand allows it. At most kKernelRank axes reach the device functor
// (a trivially copyable capture); any further, outermost axes become a host loop of launches.

#include <Kokkos_Core.hpp>

#include <cstdlib>

#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

inline constexpr int kKernelRank = 8;

template <int NOps>
struct KernelNest {
  int rank = 0;
  index_t extent[kKernelRank] = {};
  index_t stride[NOps][kKernelRank] = {};

  /// Element offsets of every operand at a column-major flat index of the nest.
  KOKKOS_INLINE_FUNCTION void offsets(index_t flat, index_t (&off)[NOps]) const {
    for (int k = 0; k < NOps; ++k) off[k] = 0;
    for (int d = 0; d < rank; ++d) {
      const index_t e = extent[d];
      const index_t i = flat % e;
      flat /= e;
      for (int k = 0; k < NOps; ++k) off[k] += i * stride[k][d];
    }
  }
};

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
