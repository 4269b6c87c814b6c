// Span-level layout checks: every offset computation is checked signed arithmetic, and the containers
// used while checking are inline (no heap for rank <= kInlineRank).
#include <limits>
#include <string>
#include <utility>

#include "tfbench/engine/storage/layout.hpp"

namespace tfbench::impl {
namespace {

std::string str(Index v) {
  return std::to_string(v);
}

Index checked_add(Index a, Index b, const char* where) {
  Index out;
  if (__builtin_add_overflow(a, b, &out))
    throw_storage_error(StorageErrc::OffsetOverflow, where,
                        str(a) + " + " + str(b) + " overflows a signed offset");
  return out;
}

struct DimStride {
  Index stride;  // absolute value
  Index extent;
  std::size_t dim;
};

}  // namespace

Index checked_mul(Index a, Index b, const char* where) {
  Index out;
  if (__builtin_mul_overflow(a, b, &out))
    throw_storage_error(StorageErrc::OffsetOverflow, where,
                        str(a) + " * " + str(b) + " overflows a signed offset");
  return out;
}

Index checked_numel(Span<const Index> shape, const char* where) {
  // The product of the non-zero extents must fit, so compact strides of an empty shape fit too.
  Index nonzero_product = 1;
  bool empty = false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const Index e = shape[d];
    if (e < 0)
      throw_storage_error(StorageErrc::NegativeExtent, where, "extent " + str(e) + " of dimension " + str(d));
    if (e == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(nonzero_product, e, &nonzero_product))
      throw_storage_error(StorageErrc::SizeOverflow, where,
                          "the element count overflows at dimension " + str(d) + " (extent " + str(e) + ")");
  }
  return empty ? 0 : nonzero_product;
}

void compact_strides(Span<const Index> shape, Index* out) noexcept {
  Index s = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out[d] = s;
    if (d + 1 < shape.size()) s *= (shape[d] > 0 ? shape[d] : 1);
  }
}

bool is_compact(Span<const Index> shape, Span<const Index> strides) noexcept {
  for (Index e : shape)
    if (e == 0) return true;
  Index expected = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

void check_bounds(Span<const Index> shape, Span<const Index> strides, Index offset, Index window,
                  const char* where) {
  for (Index e : shape)
    if (e == 0) {
      if (offset < 0 || offset > window)
        throw_storage_error(
            StorageErrc::OutOfBounds, where,
            "offset " + str(offset) + " of an empty view is outside [0, " + str(window) + "]");
      return;
    }
  Index lo = offset;
  Index hi = offset;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const Index reach = checked_mul(shape[d] - 1, strides[d], where);
    if (reach < 0)
      lo = checked_add(lo, reach, where);
    else
      hi = checked_add(hi, reach, where);
  }
  if (lo < 0 || hi >= window)
    throw_storage_error(StorageErrc::OutOfBounds, where,
                        "the layout reaches elements [" + str(lo) + ", " + str(hi) +
                            "] outside the allocation [0, " + str(window) + ")");
}

void check_injective(Span<const Index> shape, Span<const Index> strides, const char* where) {
  for (Index e : shape)
    if (e == 0) return;  // nothing to alias
  InlineVec<DimStride, kInlineRank> dims;
  dims.reserve(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // a singleton's stride is never applied
    const Index s = strides[d];
    if (s == std::numeric_limits<Index>::min())
      throw_storage_error(StorageErrc::OffsetOverflow, where, "stride " + str(s) + " of dimension " + str(d));
    dims.push_back(DimStride{s < 0 ? -s : s, shape[d], d});
  }
  for (std::size_t i = 1; i < dims.size(); ++i)  // insertion sort by |stride|: ranks are small
    for (std::size_t j = i; j > 0 && dims[j].stride < dims[j - 1].stride; --j)
      std::swap(dims[j], dims[j - 1]);
  Index reach = 0;  // furthest element reachable by the dimensions already placed
  for (const DimStride& dim : dims) {
    if (dim.stride <= reach)
      throw_storage_error(StorageErrc::Overlapping, where,
                          "dimension " + str(static_cast<Index>(dim.dim)) + " (extent " + str(dim.extent) +
                              ", |stride| " + str(dim.stride) +
                              ") revisits elements reached by smaller strides (" + str(reach) +
                              "); a mutable view must be injective");
    reach = checked_add(reach, checked_mul(dim.stride, dim.extent - 1, where), where);
  }
}

Index checked_element_offset(Span<const Index> shape, Span<const Index> strides, Index offset,
                             Span<const Index> index, const char* where) {
  if (index.size() != shape.size())
    throw_storage_error(StorageErrc::RankMismatch, where,
                        str(static_cast<Index>(index.size())) + " indices for a rank-" +
                            str(static_cast<Index>(shape.size())) + " view");
  Index off = offset;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d])
      throw_storage_error(StorageErrc::IndexOutOfBounds, where,
                          "index " + str(index[d]) + " of dimension " + str(static_cast<Index>(d)) +
                              " is outside [0, " + str(shape[d]) + ")");
    off += index[d] * strides[d];  // inside the validated reach: cannot overflow
  }
  return off;
}

void check_permutation(Span<const Index> perm, std::size_t rank, const char* where) {
  if (perm.size() != rank)
    throw_storage_error(StorageErrc::RankMismatch, where,
                        "a permutation of " + str(static_cast<Index>(perm.size())) + " axes for rank " +
                            str(static_cast<Index>(rank)));
  InlineVec<unsigned char, kInlineRank> seen(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    const Index p = perm[d];
    if (p < 0 || p >= static_cast<Index>(rank) || seen[static_cast<std::size_t>(p)])
      throw_storage_error(
          StorageErrc::InvalidPermutation, where,
          "axis " + str(p) + " at position " + str(static_cast<Index>(d)) + " is out of range or repeated");
    seen[static_cast<std::size_t>(p)] = 1;
  }
}

SlicedDim slice_dim(Index extent, Index stride, SliceRange r, std::size_t dim, const char* where) {
  const auto what = [dim] { return "dimension " + std::to_string(dim); };  // built on errors only
  if (r.step == 0) throw_storage_error(StorageErrc::ZeroStep, where, what() + ": step 0");
  Index count = 0;
  if (r.step > 0) {
    if (r.begin < 0 || r.begin > r.end || r.end > extent)
      throw_storage_error(StorageErrc::InvalidRange, where,
                          what() + ": [" + str(r.begin) + ", " + str(r.end) + ") step " + str(r.step) +
                              " needs 0 <= begin <= end <= extent " + str(extent));
    count = r.begin == r.end ? 0 : 1 + (r.end - r.begin - 1) / r.step;
  } else {
    if (r.end < -1 || r.end > r.begin || r.begin >= extent)
      throw_storage_error(StorageErrc::InvalidRange, where,
                          what() + ": (" + str(r.end) + ", " + str(r.begin) + "] step " + str(r.step) +
                              " needs -1 <= end <= begin < extent " + str(extent));
    const Index magnitude =
        r.step == std::numeric_limits<Index>::min() ? std::numeric_limits<Index>::max() : -r.step;
    count = r.begin == r.end ? 0 : 1 + (r.begin - r.end - 1) / magnitude;
  }
  SlicedDim out{0, count, stride};
  if (count > 0) out.offset_delta = r.begin * stride;  // begin is a valid index: inside the parent's reach
  if (count > 1) out.stride = checked_mul(stride, r.step, where);
  return out;
}

}  // namespace tfbench::impl
