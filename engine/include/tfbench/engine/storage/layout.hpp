#pragma once
// Strided layouts of views: shape, strides (in elements, signed), offset and the allocation window
// they must stay inside. Every constructor and transform validates with checked signed arithmetic and
// builds the new metadata directly in its final container (no heap for rank <= kInlineRank).

#include <cstddef>
#include <utility>

#include "tfbench/engine/storage/error.hpp"
#include "tfbench/engine/storage/rank.hpp"
#include "tfbench/engine/storage/span.hpp"

namespace tfbench {

/// Indices begin, begin + step, ... strictly before end (step > 0) or strictly after end (step < 0).
/// A full reverse of extent n is {n - 1, -1, -1}.
struct SliceRange {
  Index begin = 0;
  Index end = 0;
  Index step = 1;
};

namespace impl {

// Span-level checks, compiled once in src/storage/layout.cpp. `where` names the calling API.

/// Product of the extents; NegativeExtent or SizeOverflow.
Index checked_numel(Span<const Index> shape, const char* where);
/// Compact column-major strides of shape into out[0, rank).
void compact_strides(Span<const Index> shape, Index* out) noexcept;
/// True when the layout is compact column-major (strides of extent-1 dimensions are ignored; an empty
/// layout is compact).
bool is_compact(Span<const Index> shape, Span<const Index> strides) noexcept;
/// Every reachable element lies in [0, window); OutOfBounds or OffsetOverflow. An empty layout only
/// needs 0 <= offset <= window.
void check_bounds(Span<const Index> shape, Span<const Index> strides, Index offset, Index window,
                  const char* where);
/// No two indices reach one element (sufficient test: sorted by |stride|, each stride exceeds the
/// reach of all smaller ones); Overlapping. Conservative for interleaved layouts.
void check_injective(Span<const Index> shape, Span<const Index> strides, const char* where);
/// offset + sum(index * stride) with every index checked against its extent; RankMismatch or
/// IndexOutOfBounds.
Index checked_element_offset(Span<const Index> shape, Span<const Index> strides, Index offset,
                             Span<const Index> index, const char* where);
/// perm is a permutation of [0, rank); RankMismatch or InvalidPermutation.
void check_permutation(Span<const Index> perm, std::size_t rank, const char* where);

struct SlicedDim {
  Index offset_delta;
  Index extent;
  Index stride;
};
/// One dimension after slicing; InvalidRange, ZeroStep or OffsetOverflow.
SlicedDim slice_dim(Index extent, Index stride, SliceRange range, std::size_t dim, const char* where);
/// checked a * b; OffsetOverflow.
Index checked_mul(Index a, Index b, const char* where);

template <class R>
struct ExtentsOps;
template <>
struct ExtentsOps<DynRank> {
  static Shape of_rank(std::size_t rank) { return Shape(rank); }
  static Shape from(Span<const Index> values, const char*) { return Shape(values); }
};
template <std::size_t N>
struct ExtentsOps<Rank<N>> {
  static std::array<Index, N> of_rank(std::size_t) { return {}; }
  static std::array<Index, N> from(Span<const Index> values, const char* where) {
    if (values.size() != N)
      throw_storage_error(
          StorageErrc::RankMismatch, where,
          "got " + std::to_string(values.size()) + " extents for static rank " + std::to_string(N));
    std::array<Index, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = values[i];
    return out;
  }
};

/// Extents<R> holding `values`; RankMismatch when R is static and the count differs.
template <class R>
Extents<R> extents_from(Span<const Index> values, const char* where) {
  return ExtentsOps<R>::from(values, where);
}

template <class R>
struct StridedLayout {
  Extents<R> shape{};
  Extents<R> strides{};
  Index offset = 0;  // from the window base to logical element zero
  Index window = 0;  // the view may reach elements [0, window) of its base

  std::size_t rank() const noexcept { return shape.size(); }
  /// Validated at construction, so the product cannot overflow.
  Index numel() const noexcept {
    Index n = 1;
    for (Index e : shape) n *= e;
    return n;
  }
};

/// The compact column-major layout of an owner's shape.
template <class R>
StridedLayout<R> compact_layout(const Extents<R>& shape, Index numel) noexcept {
  StridedLayout<R> out;
  out.shape = shape;
  out.strides = shape;  // same rank; overwritten below (an inline copy is cheaper than a resize)
  compact_strides(Span<const Index>(shape.data(), shape.size()), out.strides.data());
  out.window = numel;
  return out;
}

/// A caller-chosen layout, validated: extents, bounds and (mutable_access) injectivity.
template <class R>
StridedLayout<R> checked_layout(Span<const Index> shape, Span<const Index> strides, Index offset,
                                Index window, bool mutable_access, const char* where) {
  if (shape.size() != strides.size())
    throw_storage_error(
        StorageErrc::RankMismatch, where,
        std::to_string(shape.size()) + " extents but " + std::to_string(strides.size()) + " strides");
  checked_numel(shape, where);
  check_bounds(shape, strides, offset, window, where);
  if (mutable_access) check_injective(shape, strides, where);
  StridedLayout<R> out;
  out.shape = extents_from<R>(shape, where);
  out.strides = extents_from<R>(strides, where);
  out.offset = offset;
  out.window = window;
  return out;
}

/// Dimension d of the result is dimension perm[d] of the input. Keeps the rank.
template <class R>
StridedLayout<R> permuted(const StridedLayout<R>& in, Span<const Index> perm) {
  check_permutation(perm, in.rank(), "permute");
  StridedLayout<R> out = in;
  for (std::size_t d = 0; d < in.rank(); ++d) {
    const auto src = static_cast<std::size_t>(perm[d]);
    out.shape[d] = in.shape[src];
    out.strides[d] = in.strides[src];
  }
  return out;
}

/// Restricts dimension dim to range. A subset of a valid (injective) layout stays valid.
template <class R>
StridedLayout<R> sliced(const StridedLayout<R>& in, std::size_t dim, SliceRange range) {
  if (dim >= in.rank())
    throw_storage_error(
        StorageErrc::InvalidDimension, "slice",
        "dimension " + std::to_string(dim) + " of a rank-" + std::to_string(in.rank()) + " view");
  const SlicedDim s = slice_dim(in.shape[dim], in.strides[dim], range, dim, "slice");
  StridedLayout<R> out = in;
  out.shape[dim] = s.extent;
  out.strides[dim] = s.stride;
  out.offset = in.offset + s.offset_delta;  // stays inside the validated reach of `in`
  return out;
}

/// Reinterprets compact data with another shape of the same element count; NotCompact or
/// ElementCountMismatch.
template <class R>
StridedLayout<DynRank> reshaped(const StridedLayout<R>& in, Span<const Index> new_shape) {
  const Span<const Index> shape(in.shape.data(), in.rank());
  if (!is_compact(shape, Span<const Index>(in.strides.data(), in.rank())))
    throw_storage_error(StorageErrc::NotCompact, "reshape",
                        "only compact column-major data can be reshaped; compact it first (to_col_major)");
  const Index count = checked_numel(new_shape, "reshape");
  if (count != in.numel())
    throw_storage_error(StorageErrc::ElementCountMismatch, "reshape",
                        std::to_string(in.numel()) + " elements cannot take a shape of " +
                            std::to_string(count) + " elements");
  StridedLayout<DynRank> out;
  out.shape = Shape(new_shape);
  out.strides = out.shape;
  compact_strides(new_shape, out.strides.data());
  out.offset = in.offset;
  out.window = in.window;
  return out;
}

/// The layout of the real pairs of a complex layout: rank r + 1, leading extent 2 with stride 1, every
/// other stride, the offset and the window doubled.
template <class R>
StridedLayout<DynRank> real_pairs(const StridedLayout<R>& in) {
  StridedLayout<DynRank> out;
  out.shape.reserve(in.rank() + 1);
  out.strides.reserve(in.rank() + 1);
  out.shape.push_back(2);
  out.strides.push_back(1);
  for (std::size_t d = 0; d < in.rank(); ++d) {
    out.shape.push_back(in.shape[d]);
    out.strides.push_back(checked_mul(in.strides[d], 2, "real_view"));
  }
  out.offset = checked_mul(in.offset, 2, "real_view");
  out.window = checked_mul(in.window, 2, "real_view");
  return out;
}

/// The same layout under another rank tag; RankMismatch when a static target rank differs.
template <class R2, class R>
StridedLayout<R2> rank_cast(const StridedLayout<R>& in, const char* where) {
  StridedLayout<R2> out;
  out.shape = extents_from<R2>(Span<const Index>(in.shape.data(), in.rank()), where);
  out.strides = extents_from<R2>(Span<const Index>(in.strides.data(), in.rank()), where);
  out.offset = in.offset;
  out.window = in.window;
  return out;
}

}  // namespace impl
}  // namespace tfbench
