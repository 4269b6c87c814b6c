#pragma once
// Sequential traversal of a strided layout in column-major logical order: the container-copy boundary
// of host clone, compaction and row-major import. The odometer lives in an InlineVec, so
// ranks up to kInlineRank do not allocate.

#include <cstddef>

#include "tfbench/engine/storage/rank.hpp"
#include "tfbench/engine/storage/span.hpp"

namespace tfbench::impl {

/// Calls f(element_offset) for every element, first index fastest.
template <class F>
void for_each_strided(Span<const Index> shape, Span<const Index> strides, Index offset, F&& f) {
  const std::size_t rank = shape.size();
  for (std::size_t d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  if (rank == 0) {
    f(offset);
    return;
  }
  Shape counter(rank, 0);
  Index off = offset;
  const Index n0 = shape[0];
  const Index s0 = strides[0];
  for (;;) {
    for (Index i = 0; i < n0; ++i) f(off + i * s0);
    std::size_t d = 1;
    for (; d < rank; ++d) {
      if (++counter[d] < shape[d]) {
        off += strides[d];
        break;
      }
      off -= (shape[d] - 1) * strides[d];
      counter[d] = 0;
    }
    if (d == rank) return;
  }
}

/// offset + sum(index[d] * strides[d]) without checks (operator()).
inline Index unchecked_offset(Span<const Index> strides, Index offset, const Index* index) noexcept {
  Index off = offset;
  for (std::size_t d = 0; d < strides.size(); ++d) off += index[d] * strides[d];
  return off;
}

/// Column-major offset of index in a compact shape (Horner; owners store no strides).
inline Index compact_offset(Span<const Index> shape, const Index* index) noexcept {
  Index off = 0;
  for (std::size_t d = shape.size(); d-- > 0;) off = off * shape[d] + index[d];
  return off;
}

}  // namespace tfbench::impl
