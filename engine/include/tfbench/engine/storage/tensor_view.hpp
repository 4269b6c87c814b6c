#pragma once
// TensorView (read) and TensorViewMut (write) of the tensor family. A view owns nothing: it
// carries a base pointer, one validated layout (shape, signed strides in elements, offset, window)
// and its memory space. Transforms build the new metadata directly in its final container, so views of
// rank <= kInlineRank never touch the heap; larger ranks spill and still work.
//
// Only Host views expose elements (data, at, operator(), as_slice, to_col_major). Dynamic views must
// be narrowed first (into_host / into_device); Device views expose their device pointer for kernels.
// Mutable views are move-only and their transforms consume them, so one write authority exists at a
// time; every mutable layout is checked to be injective. Views borrow: the owner (or mapping guard)
// must outlive them.

#include <array>
#include <cstddef>
#include <type_traits>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/storage/conversion.hpp"
#include "tfbench/engine/storage/impl/view_base.hpp"

namespace tfbench {

template <class T, class R, class Rep>
class TensorView : public impl::ViewBase<const T*, R> {
  static_assert(is_rank_tag<R>::value, "TensorView: R must be DynRank or Rank<N>");
  static_assert(is_representation<Rep>::value, "TensorView: Rep must be Host, Device or Dynamic");
  using Base = impl::ViewBase<const T*, R>;

 public:
  using element_type = T;
  using rank_type = R;
  using representation = Rep;

  /// A view of caller-owned host memory data[0, size): the layout is checked against it.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  static TensorView from_host_span(Span<const T> data, Span<const Index> shape, Span<const Index> strides,
                                   Index offset = 0) {
    return TensorView(data.data(),
                      impl::checked_layout<R>(shape, strides, offset, static_cast<Index>(data.size()), false,
                                              "from_host_span"),
                      MemorySpaceKind::Host);
  }

  /// Start of the window, in memory of space(). Not for dereferencing device memory on the host.
  const T* base() const noexcept { return this->base_; }

  // --- host access (Host views only)

  /// Logical element zero.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T* data() const noexcept {
    return this->base_ + this->layout_.offset;
  }
  /// Checked access: RankMismatch or IndexOutOfBounds.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T& at(Span<const Index> index) const {
    return this->base_[this->checked_at(index)];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& at(I... index) const {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value,
                  "at(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return at(Span<const Index>(ix.data(), ix.size()));
  }
  /// Unchecked access (asserts in debug builds).
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& operator()(I... index) const noexcept {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value, "(): index count differs from the rank");
    return this->base_[this->unchecked_at(std::array<Index, sizeof...(I)>{static_cast<Index>(index)...})];
  }
  /// The elements of a compact view, in column-major order; NotCompact otherwise.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Span<const T> as_slice() const {
    if (!this->is_compact())
      impl::throw_storage_error(StorageErrc::NotCompact, "as_slice", "the view is not compact column-major");
    return {data(), static_cast<std::size_t>(this->numel())};
  }
  /// Sequential copy into a new compact plain Host owner (any copyable element type).
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Tensor<T, R, Host> to_col_major() const {
    return impl::compact_host<T, R>(*this);
  }
  /// Device copy into a new compact Device owner, on exec (fenced).
  template <class ExecSpace, class Q = Rep, impl::EnableIfDevice<Q> = 0>
  Tensor<T, R, Device> to_col_major(const ExecSpace& exec) const {
    return impl::compact_device<T, R>(exec, *this);
  }

  // --- transforms (validated; no heap for rank <= kInlineRank)

  /// Dimension d of the result is dimension perm[d] of this view.
  TensorView permute(Span<const Index> perm) const { return with(impl::permuted(this->layout_, perm)); }
  TensorView slice(std::size_t dim, SliceRange range) const {
    return with(impl::sliced(this->layout_, dim, range));
  }
  /// Compact data under another shape of the same element count (NotCompact, ElementCountMismatch).
  TensorView<T, DynRank, Rep> reshape(Span<const Index> shape) const {
    return impl::ViewAccess::make<TensorView<T, DynRank, Rep>>(
        this->base_, impl::reshaped(this->layout_, shape), this->space_);
  }
  /// The real/imaginary pairs of a complex view: rank + 1, leading extent 2 (0 real, 1 imaginary).
  template <class U = T, std::enable_if_t<complex_traits<U>::is_complex, int> = 0>
  TensorView<typename complex_traits<U>::real_type, DynRank, Rep> real_view() const {
    using Real = typename complex_traits<U>::real_type;
    static_assert(sizeof(U) == 2 * sizeof(Real), "complex is two reals");
    return impl::ViewAccess::make<TensorView<Real, DynRank, Rep>>(
        reinterpret_cast<const Real*>(this->base_), impl::real_pairs(this->layout_), this->space_);
  }

  // --- conversions (the view is unchanged on failure)

  TensorView<T, R, Dynamic> into_dynamic() const {
    return impl::ViewAccess::make<TensorView<T, R, Dynamic>>(this->base_, this->layout_, this->space_);
  }
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<TensorView<T, R, Host>, ConversionFailure<TensorView>> into_host() const {
    if (this->space_ != MemorySpaceKind::Host)
      return unexpected(ConversionFailure<TensorView>{
          ConversionCause::NotHostResident, *this, "into_host: the view's elements live in device memory"});
    return impl::ViewAccess::make<TensorView<T, R, Host>>(this->base_, this->layout_, this->space_);
  }
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<TensorView<T, R, Device>, ConversionFailure<TensorView>> into_device() const {
    if (this->space_ != MemorySpaceKind::Device)
      return unexpected(ConversionFailure<TensorView>{
          ConversionCause::NotDeviceResident, *this, "into_device: the view's elements live in host memory"});
    return impl::ViewAccess::make<TensorView<T, R, Device>>(this->base_, this->layout_, this->space_);
  }
  template <std::size_t N>
  Result<TensorView<T, Rank<N>, Rep>, ConversionFailure<TensorView>> into_rank() const {
    if (this->rank() != N)
      return unexpected(ConversionFailure<TensorView>{
          ConversionCause::RankMismatch, *this,
          "into_rank: a rank-" + std::to_string(this->rank()) + " view is not rank " + std::to_string(N)});
    return impl::ViewAccess::make<TensorView<T, Rank<N>, Rep>>(
        this->base_, impl::rank_cast<Rank<N>>(this->layout_, "into_rank"), this->space_);
  }
  TensorView<T, DynRank, Rep> into_dyn() const {
    return impl::ViewAccess::make<TensorView<T, DynRank, Rep>>(
        this->base_, impl::rank_cast<DynRank>(this->layout_, "into_dyn"), this->space_);
  }

 private:
  friend struct impl::ViewAccess;
  TensorView(const T* base, impl::StridedLayout<R>&& layout, MemorySpaceKind space) noexcept
      : Base(base, std::move(layout), space) {}
  TensorView with(impl::StridedLayout<R>&& layout) const noexcept {
    return TensorView(this->base_, std::move(layout), this->space_);
  }
};

template <class T, class R, class Rep>
class TensorViewMut : public impl::ViewBase<T*, R> {
  static_assert(is_rank_tag<R>::value, "TensorViewMut: R must be DynRank or Rank<N>");
  static_assert(is_representation<Rep>::value, "TensorViewMut: Rep must be Host, Device or Dynamic");
  using Base = impl::ViewBase<T*, R>;

 public:
  using element_type = T;
  using rank_type = R;
  using representation = Rep;

  TensorViewMut(TensorViewMut&&) noexcept = default;
  TensorViewMut& operator=(TensorViewMut&&) noexcept = default;
  TensorViewMut(const TensorViewMut&) = delete;
  TensorViewMut& operator=(const TensorViewMut&) = delete;

  /// A mutable view of caller-owned host memory data[0, size): bounds and injectivity are checked.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  static TensorViewMut from_host_span(Span<T> data, Span<const Index> shape, Span<const Index> strides,
                                      Index offset = 0) {
    return TensorViewMut(data.data(),
                         impl::checked_layout<R>(shape, strides, offset, static_cast<Index>(data.size()),
                                                 true, "from_host_span"),
                         MemorySpaceKind::Host);
  }

  T* base() const noexcept { return this->base_; }
  /// A read view of the same elements (borrowing this one: do not write through this view meanwhile).
  TensorView<T, R, Rep> as_const() const noexcept {
    return impl::ViewAccess::make<TensorView<T, R, Rep>>(static_cast<const T*>(this->base_), this->layout_,
                                                         this->space_);
  }

  // --- host access (Host views only)

  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  T* data() noexcept {
    return this->base_ + this->layout_.offset;
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T* data() const noexcept {
    return this->base_ + this->layout_.offset;
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  T& at(Span<const Index> index) {
    return this->base_[this->checked_at(index)];
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T& at(Span<const Index> index) const {
    return this->base_[this->checked_at(index)];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  T& at(I... index) {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value,
                  "at(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return at(Span<const Index>(ix.data(), ix.size()));
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& at(I... index) const {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value,
                  "at(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return at(Span<const Index>(ix.data(), ix.size()));
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  T& operator()(I... index) noexcept {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value, "(): index count differs from the rank");
    return this->base_[this->unchecked_at(std::array<Index, sizeof...(I)>{static_cast<Index>(index)...})];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& operator()(I... index) const noexcept {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value, "(): index count differs from the rank");
    return this->base_[this->unchecked_at(std::array<Index, sizeof...(I)>{static_cast<Index>(index)...})];
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Span<T> as_slice() {
    if (!this->is_compact())
      impl::throw_storage_error(StorageErrc::NotCompact, "as_slice", "the view is not compact column-major");
    return {data(), static_cast<std::size_t>(this->numel())};
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Tensor<T, R, Host> to_col_major() const {
    return impl::compact_host<T, R>(*this);
  }
  template <class ExecSpace, class Q = Rep, impl::EnableIfDevice<Q> = 0>
  Tensor<T, R, Device> to_col_major(const ExecSpace& exec) const {
    return impl::compact_device<T, R>(exec, *this);
  }

  // --- transforms: each consumes this view (std::move(v).permute(...)) and keeps injectivity

  TensorViewMut permute(Span<const Index> perm) && { return with(impl::permuted(this->layout_, perm)); }
  TensorViewMut slice(std::size_t dim, SliceRange range) && {
    return with(impl::sliced(this->layout_, dim, range));
  }
  TensorViewMut<T, DynRank, Rep> reshape(Span<const Index> shape) && {
    return impl::ViewAccess::make<TensorViewMut<T, DynRank, Rep>>(
        this->base_, impl::reshaped(this->layout_, shape), this->space_);
  }
  template <class U = T, std::enable_if_t<complex_traits<U>::is_complex, int> = 0>
  TensorViewMut<typename complex_traits<U>::real_type, DynRank, Rep> real_view() && {
    using Real = typename complex_traits<U>::real_type;
    static_assert(sizeof(U) == 2 * sizeof(Real), "complex is two reals");
    return impl::ViewAccess::make<TensorViewMut<Real, DynRank, Rep>>(
        reinterpret_cast<Real*>(this->base_), impl::real_pairs(this->layout_), this->space_);
  }

  // --- conversions: consume this view; on failure the view comes back inside the error

  TensorViewMut<T, R, Dynamic> into_dynamic() && {
    return impl::ViewAccess::make<TensorViewMut<T, R, Dynamic>>(this->base_, this->layout_, this->space_);
  }
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<TensorViewMut<T, R, Host>, ConversionFailure<TensorViewMut>> into_host() && {
    if (this->space_ != MemorySpaceKind::Host)
      return unexpected(
          ConversionFailure<TensorViewMut>{ConversionCause::NotHostResident, std::move(*this),
                                           "into_host: the view's elements live in device memory"});
    return impl::ViewAccess::make<TensorViewMut<T, R, Host>>(this->base_, this->layout_, this->space_);
  }
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<TensorViewMut<T, R, Device>, ConversionFailure<TensorViewMut>> into_device() && {
    if (this->space_ != MemorySpaceKind::Device)
      return unexpected(
          ConversionFailure<TensorViewMut>{ConversionCause::NotDeviceResident, std::move(*this),
                                           "into_device: the view's elements live in host memory"});
    return impl::ViewAccess::make<TensorViewMut<T, R, Device>>(this->base_, this->layout_, this->space_);
  }
  template <std::size_t N>
  Result<TensorViewMut<T, Rank<N>, Rep>, ConversionFailure<TensorViewMut>> into_rank() && {
    if (this->rank() != N) {
      std::string detail =
          "into_rank: a rank-" + std::to_string(this->rank()) + " view is not rank " + std::to_string(N);
      return unexpected(ConversionFailure<TensorViewMut>{ConversionCause::RankMismatch, std::move(*this),
                                                         std::move(detail)});
    }
    return impl::ViewAccess::make<TensorViewMut<T, Rank<N>, Rep>>(
        this->base_, impl::rank_cast<Rank<N>>(this->layout_, "into_rank"), this->space_);
  }
  TensorViewMut<T, DynRank, Rep> into_dyn() && {
    return impl::ViewAccess::make<TensorViewMut<T, DynRank, Rep>>(
        this->base_, impl::rank_cast<DynRank>(this->layout_, "into_dyn"), this->space_);
  }

 private:
  friend struct impl::ViewAccess;
  TensorViewMut(T* base, impl::StridedLayout<R>&& layout, MemorySpaceKind space) noexcept
      : Base(base, std::move(layout), space) {}
  TensorViewMut with(impl::StridedLayout<R>&& layout) noexcept {
    return TensorViewMut(this->base_, std::move(layout), this->space_);
  }
};

}  // namespace tfbench
