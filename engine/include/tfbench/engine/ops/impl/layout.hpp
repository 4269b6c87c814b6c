#pragma once
// Borrowed strided layouts of operation operands and the per-operation bookkeeping built on them.
// A RawLayout borrows the shape and stride arrays of a tensor or view (no copy, no allocation);
// null strides mean the compact column-major layout of an owner. StrideList count elements and may
// be negative (reads and writes) or zero (reads only: broadcasting).

#include <cstdint>

#include "tfbench/engine/ops/impl/fixed_vec.hpp"

namespace tfbench::impl {

using index_t = std::int64_t;

/// Largest operand rank an operation accepts (bookkeeping is inline; beyond it: a typed error).
inline constexpr int kMaxOpRank = 64;

using DimList = FixedVec<index_t, kMaxOpRank>;
using StrideList = FixedVec<index_t, kMaxOpRank>;
using AxisList = FixedVec<int, kMaxOpRank>;
using FlagList = FixedVec<bool, kMaxOpRank>;

struct RawLayout {
  const index_t* shape = nullptr;
  const index_t* strides = nullptr;  // nullptr: compact column-major
  int rank = 0;

  index_t extent(int axis) const { return shape[axis]; }
  bool compact_tag() const { return strides == nullptr; }
};

/// Element count of a shape (1 for rank 0).
inline index_t element_count(const index_t* shape, int rank) {
  index_t n = 1;
  for (int i = 0; i < rank; ++i) n *= shape[i];
  return n;
}
inline index_t element_count(const RawLayout& layout) {
  return element_count(layout.shape, layout.rank);
}

/// Compact column-major strides of a shape.
inline StrideList compact_strides(const index_t* shape, int rank) {
  StrideList s;
  index_t step = 1;
  for (int i = 0; i < rank; ++i) {
    s.push_back(step);
    step *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

/// The strides of a layout, computing the compact ones for an owner's compact tag.
inline StrideList strides_of(const RawLayout& layout) {
  if (layout.compact_tag()) return compact_strides(layout.shape, layout.rank);
  StrideList s;
  for (int i = 0; i < layout.rank; ++i) s.push_back(layout.strides[i]);
  return s;
}

inline DimList extents_of(const RawLayout& layout) {
  DimList e;
  for (int i = 0; i < layout.rank; ++i) e.push_back(layout.shape[i]);
  return e;
}

/// True when the layout is compact column-major (extent-1 axes ignored).
inline bool is_compact_col_major(const index_t* shape, const index_t* strides, int rank) {
  if (strides == nullptr) return true;
  index_t step = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] == 0) return true;
    if (shape[i] == 1) continue;
    if (strides[i] != step) return false;
    step *= shape[i];
  }
  return true;
}
inline bool is_compact_col_major(const RawLayout& layout) {
  return is_compact_col_major(layout.shape, layout.strides, layout.rank);
}

/// Lowest and one-past-highest element offsets a layout reaches (empty: equal).
struct OffsetSpan {
  index_t lo = 0;
  index_t hi = 0;
};
inline OffsetSpan offset_span(const index_t* shape, const index_t* strides, int rank) {
  OffsetSpan span{0, 1};
  for (int i = 0; i < rank; ++i) {
    if (shape[i] == 0) return {0, 0};
    const index_t reach = (shape[i] - 1) * strides[i];
    if (reach < 0)
      span.lo += reach;
    else
      span.hi += reach;
  }
  return span;
}

}  // namespace tfbench::impl
