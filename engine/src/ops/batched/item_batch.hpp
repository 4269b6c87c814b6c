#pragma once
// A batch of equally shaped matrices in one allocation, described by a pointer and signed element
// strides: the currency of every batched kernel. It borrows; it never owns or copies.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tfbench::impl::batched {

/// Element (r, c) of item b lives at data[r * rs + c * cs + b * bs]. Strides are in elements and
/// may be any value the storage concern validated (padded leading dimensions, batch-interleaved
/// items, negative strides).
template <class T>
struct ItemBatch {
  T* data = nullptr;
  int rows = 0;
  int cols = 0;
  std::int64_t count = 0;
  std::ptrdiff_t rs = 1;
  std::ptrdiff_t cs = 0;
  std::ptrdiff_t bs = 0;

  KOKKOS_INLINE_FUNCTION T* item(std::int64_t b) const { return data + b * bs; }
  /// Compact column-major items back to back (the "packed" layout).
  bool packed() const {
    return rs == 1 && (cols <= 1 || cs == rows) && (count <= 1 || bs == std::ptrdiff_t(rows) * cols);
  }
  /// Each item's columns are contiguous (a leading dimension cs >= rows).
  bool unit_rows() const { return rs == 1 && (cols <= 1 || cs >= rows); }
  bool nonnegative_strides() const { return rs >= 0 && cs >= 0 && bs >= 0; }
  // A mutable batch reads as an immutable one (a batch of const T has no such conversion: it would
  // be to its own type, which nvcc warns of). U is deduced from the target: only ItemBatch<const T>.
  template <class U = T, std::enable_if_t<std::is_same<U, T>::value && !std::is_const<U>::value, int> = 0>
  operator ItemBatch<const U>() const {  // NOLINT(google-explicit-constructor)
    return {data, rows, cols, count, rs, cs, bs};
  }
};

/// A batch description of a rank-3 Kokkos View indexed [row, col, item].
template <class View>
ItemBatch<typename View::value_type> item_batch(const View& v) {
  static_assert(View::rank == 3, "a batch of matrices is a rank-3 view [rows, cols, items]");
  return {v.data(),
          static_cast<int>(v.extent(0)),
          static_cast<int>(v.extent(1)),
          static_cast<std::int64_t>(v.extent(2)),
          static_cast<std::ptrdiff_t>(v.stride(0)),
          static_cast<std::ptrdiff_t>(v.stride(1)),
          static_cast<std::ptrdiff_t>(v.stride(2))};
}

/// [begin, end) of the lane-th of `lanes` contiguous chunks of `count` items (sizes differ by <= 1).
KOKKOS_INLINE_FUNCTION void lane_chunk(std::int64_t count, int lanes, int lane, std::int64_t& begin,
                                       std::int64_t& end) {
  const std::int64_t base = count / lanes;
  const std::int64_t extra = count % lanes;
  begin = lane * base + (lane < extra ? lane : extra);
  end = begin + base + (lane < extra ? 1 : 0);
}

}  // namespace tfbench::impl::batched
