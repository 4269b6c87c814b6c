#pragma once
// Erased operation inputs and outputs (the input half of the erased boundary). TensorRead and TensorWrite
// borrow the data pointer, dtype, memory space and layout of any typed view or owner without allocating or
// copying: the layout is a LayoutRef of spans into the source's own metadata (an owner contributes its shape
// and a compact tag, because it stores no strides). Operations dispatch on dtype() once per call.
//
// They borrow: the source view or owner must outlive them. Constructing one from a temporary does not
// compile.

#include <cstddef>
#include <string>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench {

struct LayoutRef {
  Span<const Index> shape;
  Span<const Index> strides;  // empty when compact_tag is set
  Index offset = 0;
  bool compact_tag = false;  // compact column-major: strides are implied by shape

  std::size_t rank() const noexcept { return shape.size(); }
  Index numel() const noexcept {
    Index n = 1;
    for (Index e : shape) n *= e;
    return n;
  }
  /// Stride of dimension d, stored or implied by the compact tag.
  Index stride(std::size_t d) const noexcept {
    if (!compact_tag) return strides[d];
    Index s = 1;
    for (std::size_t k = 0; k < d; ++k) s *= shape[k];
    return s;
  }
  /// All strides, in an inline container (no heap for rank <= kInlineRank).
  Strides strides_value() const {
    if (!compact_tag) return Strides(strides);
    Strides out(shape.size());
    impl::compact_strides(shape, out.data());
    return out;
  }
  bool is_compact() const noexcept { return compact_tag || impl::is_compact(shape, strides); }
};

namespace impl {
template <class T>
void check_erasable() {
  static_assert(has_dtype<T>::value,
                "only element types with a DType (bool, i32, i64, f32, f64, c64, c128) can be erased");
}
[[noreturn]] void throw_dtype_mismatch(DType actual, DType requested, const char* where);
}  // namespace impl

/// A borrowed, type-erased read of a tensor.
class TensorRead {
 public:
  template <class T, class R, class Rep>
  TensorRead(const TensorView<T, R, Rep>& v) noexcept  // NOLINT(google-explicit-constructor)
      : data_(v.base()),
        window_(v.window()),
        dtype_(dtype_of<T>()),
        space_(v.space()),
        layout_{v.shape(), v.strides(), v.offset(), false} {
    impl::check_erasable<T>();
  }
  template <class T, class R, class Rep>
  TensorRead(const TensorViewMut<T, R, Rep>& v) noexcept  // NOLINT(google-explicit-constructor)
      : data_(v.base()),
        window_(v.window()),
        dtype_(dtype_of<T>()),
        space_(v.space()),
        layout_{v.shape(), v.strides(), v.offset(), false} {
    impl::check_erasable<T>();
  }
  template <class T, class R, class Rep>
  TensorRead(const Tensor<T, R, Rep>& owner) noexcept  // NOLINT(google-explicit-constructor)
      : data_(impl::storage_data<T>(impl::TensorAccess::storage(owner))),
        window_(owner.numel()),
        dtype_(dtype_of<T>()),
        space_(owner.space()),
        layout_{owner.shape(), {}, 0, true} {
    impl::check_erasable<T>();
  }
  // Borrowing a temporary would dangle.
  template <class T, class R, class Rep>
  TensorRead(const TensorView<T, R, Rep>&&) = delete;
  template <class T, class R, class Rep>
  TensorRead(const TensorViewMut<T, R, Rep>&&) = delete;
  template <class T, class R, class Rep>
  TensorRead(const Tensor<T, R, Rep>&&) = delete;

  DType dtype() const noexcept { return dtype_; }
  MemorySpaceKind space() const noexcept { return space_; }
  /// Base of the window (memory of space()); element zero is at layout().offset elements from it.
  const void* data() const noexcept { return data_; }
  Index window() const noexcept { return window_; }
  const LayoutRef& layout() const noexcept { return layout_; }
  std::size_t rank() const noexcept { return layout_.rank(); }
  Span<const Index> shape() const noexcept { return layout_.shape; }
  Index numel() const noexcept { return layout_.numel(); }

  /// The base pointer as T; DTypeMismatch unless dtype() == dtype_of<T>().
  template <class T>
  const T* data_as() const {
    if (dtype_of<T>() != dtype_) impl::throw_dtype_mismatch(dtype_, dtype_of<T>(), "TensorRead::data_as");
    return static_cast<const T*>(data_);
  }
  /// The typed view back (Dynamic representation, dynamic rank; inline metadata for rank <= 8).
  template <class T>
  TensorView<T, DynRank, Dynamic> typed() const {
    const T* base = data_as<T>();
    impl::StridedLayout<DynRank> layout;
    layout.shape = Shape(layout_.shape);
    layout.strides = layout_.strides_value();
    layout.offset = layout_.offset;
    layout.window = window_;
    return impl::ViewAccess::make<TensorView<T, DynRank, Dynamic>>(base, std::move(layout), space_);
  }

 private:
  friend class TensorWrite;
  TensorRead(const void* data, Index window, DType dtype, MemorySpaceKind space, LayoutRef layout) noexcept
      : data_(data), window_(window), dtype_(dtype), space_(space), layout_(layout) {}

  const void* data_;
  Index window_;
  DType dtype_;
  MemorySpaceKind space_;
  LayoutRef layout_;
};

/// A borrowed, type-erased write destination (an injective layout: from a mutable view or an owner).
class TensorWrite {
 public:
  template <class T, class R, class Rep>
  TensorWrite(TensorViewMut<T, R, Rep>& v) noexcept  // NOLINT(google-explicit-constructor)
      : data_(v.base()),
        window_(v.window()),
        dtype_(dtype_of<T>()),
        space_(v.space()),
        layout_{v.shape(), v.strides(), v.offset(), false} {
    impl::check_erasable<T>();
  }
  template <class T, class R, class Rep>
  TensorWrite(Tensor<T, R, Rep>& owner) noexcept  // NOLINT(google-explicit-constructor)
      : data_(impl::storage_data<T>(impl::TensorAccess::storage(owner))),
        window_(owner.numel()),
        dtype_(dtype_of<T>()),
        space_(owner.space()),
        layout_{owner.shape(), {}, 0, true} {
    impl::check_erasable<T>();
  }
  template <class T, class R, class Rep>
  TensorWrite(TensorViewMut<T, R, Rep>&&) = delete;
  template <class T, class R, class Rep>
  TensorWrite(Tensor<T, R, Rep>&&) = delete;

  DType dtype() const noexcept { return dtype_; }
  MemorySpaceKind space() const noexcept { return space_; }
  void* data() const noexcept { return data_; }
  Index window() const noexcept { return window_; }
  const LayoutRef& layout() const noexcept { return layout_; }
  std::size_t rank() const noexcept { return layout_.rank(); }
  Span<const Index> shape() const noexcept { return layout_.shape; }
  Index numel() const noexcept { return layout_.numel(); }

  template <class T>
  T* data_as() const {
    if (dtype_of<T>() != dtype_) impl::throw_dtype_mismatch(dtype_, dtype_of<T>(), "TensorWrite::data_as");
    return static_cast<T*>(data_);
  }
  /// The typed mutable view back; the erased write it came from must not be used meanwhile.
  template <class T>
  TensorViewMut<T, DynRank, Dynamic> typed() const {
    T* base = data_as<T>();
    impl::StridedLayout<DynRank> layout;
    layout.shape = Shape(layout_.shape);
    layout.strides = layout_.strides_value();
    layout.offset = layout_.offset;
    layout.window = window_;
    return impl::ViewAccess::make<TensorViewMut<T, DynRank, Dynamic>>(base, std::move(layout), space_);
  }
  /// A read of the same elements.
  TensorRead as_read() const noexcept;

 private:
  void* data_;
  Index window_;
  DType dtype_;
  MemorySpaceKind space_;
  LayoutRef layout_;
};

inline TensorRead TensorWrite::as_read() const noexcept {
  return TensorRead(data_, window_, dtype_, space_, layout_);
}

}  // namespace tfbench
