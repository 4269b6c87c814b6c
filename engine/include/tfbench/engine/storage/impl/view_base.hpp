#pragma once
// Metadata shared by TensorView and TensorViewMut: a base pointer (of the view's memory space), one
// validated strided layout and the memory space the pointer belongs to.

#include <array>
#include <cassert>
#include <string>
#include <utility>

#include "tfbench/engine/storage/fwd.hpp"
#include "tfbench/engine/storage/impl/strided_traversal.hpp"
#include "tfbench/engine/storage/layout.hpp"

namespace tfbench::impl {

template <class P, class R>
class ViewBase {
 public:
  std::size_t rank() const noexcept { return layout_.rank(); }
  Span<const Index> shape() const noexcept { return {layout_.shape.data(), layout_.rank()}; }
  /// Strides in elements (signed).
  Span<const Index> strides() const noexcept { return {layout_.strides.data(), layout_.rank()}; }
  Index extent(std::size_t dim) const {
    check_dim(dim, "extent");
    return layout_.shape[dim];
  }
  Index stride(std::size_t dim) const {
    check_dim(dim, "stride");
    return layout_.strides[dim];
  }
  /// Elements from base() to logical element zero.
  Index offset() const noexcept { return layout_.offset; }
  /// The view reaches only elements [0, window()) of base().
  Index window() const noexcept { return layout_.window; }
  Index numel() const noexcept { return layout_.numel(); }
  bool empty() const noexcept { return numel() == 0; }
  /// Compact column-major (strides of extent-1 dimensions ignored).
  bool is_compact() const noexcept { return impl::is_compact(shape(), strides()); }
  /// Memory space of base(): device memory is never dereferenced on the host.
  MemorySpaceKind space() const noexcept { return space_; }
  const StridedLayout<R>& layout() const noexcept { return layout_; }

 protected:
  ViewBase(P base, StridedLayout<R>&& layout, MemorySpaceKind space) noexcept
      : base_(base), layout_(std::move(layout)), space_(space) {}

  void check_dim(std::size_t dim, const char* where) const {
    if (dim >= rank())
      throw_storage_error(
          StorageErrc::InvalidDimension, where,
          "dimension " + std::to_string(dim) + " of a rank-" + std::to_string(rank()) + " view");
  }
  Index checked_at(Span<const Index> index) const {
    return checked_element_offset(shape(), strides(), layout_.offset, index, "at");
  }
  template <std::size_t K>
  Index unchecked_at(const std::array<Index, K>& index) const noexcept {
    assert(K == rank());
    // K strides, not strides().size(): a dynamic rank's loop would read past the K indices as far as
    // the compiler can tell (GCC 12's -Wmaybe-uninitialized), and K is a constant trip count.
    return unchecked_offset(Span<const Index>(strides().data(), K), layout_.offset, index.data());
  }

  P base_;
  StridedLayout<R> layout_;
  MemorySpaceKind space_;
};

/// Builds any view type from raw parts.
struct ViewAccess {
  template <class V, class P, class R>
  static V make(P base, StridedLayout<R>&& layout, MemorySpaceKind space) noexcept {
    return V(base, std::move(layout), space);
  }
  template <class V, class P, class R>
  static V make(P base, const StridedLayout<R>& layout, MemorySpaceKind space) noexcept {
    return V(base, StridedLayout<R>(layout), space);
  }
};

template <class T, class R, class V>
Tensor<T, R, Host> compact_host(const V& view);
template <class T, class R, class ExecSpace, class V>
Tensor<T, R, Device> compact_device(const ExecSpace& exec, const V& view);

}  // namespace tfbench::impl
