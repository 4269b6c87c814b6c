#pragma once
// Tensor<T, R, Rep>: the owner of the tensor family, the one tensor type of the engine. It stores its shape
// once and one allocation authority; its elements are always compact column-major and initialized.
//
//   Host     any element type; plain (adopted std::vector), pooled or managed storage; infallible
//            host access (data, at, operator(), as_slice, clone).
//   Device   numeric element types; a Kokkos allocation in DeviceMemorySpace (plain, pooled or
//            managed); reached through views (for kernels), upload/download or map_read/map_write.
//   Dynamic  the default: either payload, chosen at run time; narrowed with into_host()/into_device().
//
// Owners are move-only (clone() is the explicit deep copy). Consuming conversions that can fail return
// Result<Target, ConversionFailure<Tensor>> holding the unchanged owner on failure.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tfbench/engine/storage/impl/device_buffer.hpp"
#include "tfbench/engine/storage/impl/device_kernels.hpp"
#include "tfbench/engine/storage/impl/host_storage.hpp"
#include "tfbench/engine/storage/tensor_view.hpp"

namespace tfbench {

namespace impl {

template <class T, class Rep>
struct StorageOf;
template <class T>
struct StorageOf<T, Host> {
  using type = HostStorage<T>;
};
template <class T>
struct StorageOf<T, Device> {
  using type = DeviceBuffer;
};
template <class T>
struct StorageOf<T, Dynamic> {
  using type = std::variant<HostStorage<T>, DeviceBuffer>;
};

template <class T>
T* storage_data(const HostStorage<T>& s) noexcept {
  return s.data();
}
template <class T>
T* storage_data(const DeviceBuffer& s) noexcept {
  return static_cast<T*>(s.data());
}
template <class T>
T* storage_data(const std::variant<HostStorage<T>, DeviceBuffer>& s) noexcept {
  return s.index() == 0 ? std::get<0>(s).data() : static_cast<T*>(std::get<1>(s).data());
}
template <class T>
MemorySpaceKind storage_space(const HostStorage<T>&) noexcept {
  return MemorySpaceKind::Host;
}
template <class T>
MemorySpaceKind storage_space(const DeviceBuffer&) noexcept {
  return MemorySpaceKind::Device;
}
template <class T>
MemorySpaceKind storage_space(const std::variant<HostStorage<T>, DeviceBuffer>& s) noexcept {
  return s.index() == 0 ? MemorySpaceKind::Host : MemorySpaceKind::Device;
}
template <class T>
AllocationKind storage_kind(const HostStorage<T>& s) noexcept {
  return s.kind();
}
template <class T>
AllocationKind storage_kind(const DeviceBuffer& s) noexcept {
  return s.kind();
}
template <class T>
AllocationKind storage_kind(const std::variant<HostStorage<T>, DeviceBuffer>& s) noexcept {
  return s.index() == 0 ? std::get<0>(s).kind() : std::get<1>(s).kind();
}

/// Element count of shape, also checked to fit in bytes; NegativeExtent or SizeOverflow.
template <class T>
Index checked_elements(Span<const Index> shape, const char* where) {
  const Index n = checked_numel(shape, where);
  if (static_cast<std::uint64_t>(n) >
      static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T))
    throw_storage_error(StorageErrc::SizeOverflow, where,
                        std::to_string(n) + " elements of " + std::to_string(sizeof(T)) + " bytes overflow");
  return n;
}

template <class T>
void require_numeric() {
  static_assert(is_numeric_element<T>::value,
                "this operation needs an arithmetic or complex element type (Device storage and numerical "
                "construction); Host storage alone accepts any type");
}

/// Builds owners from parts and reaches their storage (storage implementation only).
struct TensorAccess {
  template <class Tn, class S>
  static Tn make(typename Tn::extents_type shape, S&& storage) {
    return Tn(std::move(shape), std::forward<S>(storage));
  }
  template <class Tn>
  static auto& storage(Tn& t) noexcept {
    return t.storage_;
  }
  template <class Tn>
  static const auto& storage(const Tn& t) noexcept {
    return t.storage_;
  }
};

constexpr const char* kDeviceTensorLabel = "tfbench::engine::storage::device_tensor";

}  // namespace impl

template <class T, class R, class Rep>
class Tensor {
  static_assert(is_rank_tag<R>::value, "Tensor: R must be DynRank or Rank<N>");
  static_assert(is_representation<Rep>::value, "Tensor: Rep must be Host, Device or Dynamic");
  using Storage = typename impl::StorageOf<T, Rep>::type;

 public:
  using element_type = T;
  using rank_type = R;
  using representation = Rep;
  using extents_type = Extents<R>;
  /// Releases a managed allocation: called exactly once with its data pointer and element count.
  using Deleter = std::function<void(T* data, Index count)>;

  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // --- construction (no public way to obtain uninitialized elements)

  /// Adopts column-major `data` without copying (bool elements are copied: std::vector<bool> is not
  /// contiguous). Shape and length are checked in O(rank): NegativeExtent, SizeOverflow, LengthMismatch.
  template <class Q = Rep, impl::EnableIfNotDevice<Q> = 0>
  static Tensor from_col_major(extents_type shape, std::vector<T> data) {
    const Index n = impl::checked_elements<T>(span_of(shape), "from_col_major");
    check_length(n, data.size(), "from_col_major");
    return Tensor(std::move(shape), Storage(impl::HostStorage<T>(impl::PlainVec<T>::take(std::move(data)))));
  }
  /// Copies row-major `data` (last index fastest) into column-major order: O(elements).
  template <class Q = Rep, impl::EnableIfNotDevice<Q> = 0>
  static Tensor from_row_major(extents_type shape, const std::vector<T>& data) {
    static_assert(std::is_copy_constructible<T>::value, "from_row_major copies elements");
    const Index n = impl::checked_elements<T>(span_of(shape), "from_row_major");
    check_length(n, data.size(), "from_row_major");
    extents_type row_strides = impl::ExtentsOps<R>::of_rank(shape.size());
    Index s = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      row_strides[d] = s;
      s *= shape[d];
    }
    impl::PlainBuilder<T> out(static_cast<std::size_t>(n));
    impl::for_each_strided(span_of(shape), span_of(row_strides), 0,
                           [&](Index off) { out.push(data[static_cast<std::size_t>(off)]); });
    return Tensor(std::move(shape), Storage(impl::HostStorage<T>(std::move(out).finish())));
  }
  /// All elements zero. Host/Dynamic: a plain host allocation; Device: a Kokkos allocation filled on
  /// DeviceExecSpace.
  static Tensor zeros(extents_type shape) {
    impl::require_numeric<T>();
    if constexpr (std::is_same<Rep, Device>::value) {
      return zeros(DeviceExecSpace(), std::move(shape));
    } else {
      const Index n = impl::checked_elements<T>(span_of(shape), "zeros");
      auto plain = typename impl::PlainVec<T>::type(static_cast<std::size_t>(n));
      return Tensor(std::move(shape), Storage(impl::HostStorage<T>(std::move(plain))));
    }
  }
  /// Device zeros filled by a kernel on exec (fenced before returning).
  template <class ExecSpace, class Q = Rep, impl::EnableIfDevice<Q> = 0>
  static Tensor zeros(const ExecSpace& exec, extents_type shape) {
    impl::require_numeric<T>();
    const Index n = impl::checked_elements<T>(span_of(shape), "zeros");
    impl::KokkosBlock block(static_cast<std::size_t>(n) * sizeof(T), impl::kDeviceTensorLabel);
    impl::fill_zero(exec, static_cast<T*>(block.data()), n);
    exec.fence();
    return Tensor(std::move(shape), Storage(impl::DeviceBuffer(std::move(block))));
  }
  /// Zeros in a block checked out of `pool` (pooled allocation kind): Host tensors from a HostPool,
  /// Device tensors from a DevicePool (on host builds they are the same type).
  template <class M, class Q = Rep, std::enable_if_t<!std::is_same<Q, Dynamic>::value, int> = 0>
  static Tensor zeros(extents_type shape, const std::shared_ptr<BufferPool<M>>& pool);
  /// Takes ownership of foreign memory holding numel(shape) initialized elements: host memory for
  /// Host/Dynamic, DeviceMemorySpace memory for Device (numeric T). `deleter` is called exactly once,
  /// when the owner is destroyed. On a rejected argument (NegativeExtent, SizeOverflow, NullData,
  /// Misaligned, MissingDeleter) the caller keeps ownership and the deleter is not called.
  static Tensor from_managed(extents_type shape, T* data, Deleter deleter) {
    const Index n = impl::checked_elements<T>(span_of(shape), "from_managed");
    if (!deleter)
      impl::throw_storage_error(StorageErrc::MissingDeleter, "from_managed",
                                "a managed allocation needs a deleter");
    if (data == nullptr && n > 0)
      impl::throw_storage_error(StorageErrc::NullData, "from_managed", "null data for a non-empty shape");
    if (reinterpret_cast<std::uintptr_t>(data) % alignof(T) != 0)
      impl::throw_storage_error(StorageErrc::Misaligned, "from_managed",
                                "data is not aligned to " + std::to_string(alignof(T)) + " bytes");
    impl::ManagedAllocation managed(
        data, [release = std::move(deleter), n](void* p) { release(static_cast<T*>(p), n); });
    if constexpr (std::is_same<Rep, Device>::value) {
      impl::require_numeric<T>();
      return Tensor(std::move(shape), Storage(impl::DeviceBuffer(std::move(managed))));
    } else {
      return Tensor(std::move(shape), Storage(impl::HostStorage<T>(std::move(managed))));
    }
  }

  // --- metadata

  std::size_t rank() const noexcept { return shape_.size(); }
  Span<const Index> shape() const noexcept { return span_of(shape_); }
  Index extent(std::size_t dim) const {
    if (dim >= rank())
      impl::throw_storage_error(
          StorageErrc::InvalidDimension, "extent",
          "dimension " + std::to_string(dim) + " of a rank-" + std::to_string(rank()) + " tensor");
    return shape_[dim];
  }
  /// Product of the extents (checked at construction).
  Index numel() const noexcept {
    Index n = 1;
    for (Index e : shape_) n *= e;
    return n;
  }
  MemorySpaceKind space() const noexcept { return impl::storage_space<T>(storage_); }
  AllocationKind allocation_kind() const noexcept { return impl::storage_kind<T>(storage_); }

  // --- views (borrow this owner: it must outlive them)

  TensorView<T, R, Rep> view() const {
    return impl::ViewAccess::make<TensorView<T, R, Rep>>(static_cast<const T*>(raw()),
                                                         impl::compact_layout<R>(shape_, numel()), space());
  }
  TensorViewMut<T, R, Rep> view_mut() {
    return impl::ViewAccess::make<TensorViewMut<T, R, Rep>>(raw(), impl::compact_layout<R>(shape_, numel()),
                                                            space());
  }
  /// A view with a caller-chosen layout over this owner's elements; bounds checked (OutOfBounds,
  /// OffsetOverflow, NegativeExtent, RankMismatch).
  TensorView<T, R, Rep> strided_view(Span<const Index> shape, Span<const Index> strides,
                                     Index offset = 0) const {
    return impl::ViewAccess::make<TensorView<T, R, Rep>>(
        static_cast<const T*>(raw()),
        impl::checked_layout<R>(shape, strides, offset, numel(), false, "strided_view"), space());
  }
  /// As strided_view, and the layout must be injective (Overlapping).
  TensorViewMut<T, R, Rep> strided_view_mut(Span<const Index> shape, Span<const Index> strides,
                                            Index offset = 0) {
    return impl::ViewAccess::make<TensorViewMut<T, R, Rep>>(
        raw(), impl::checked_layout<R>(shape, strides, offset, numel(), true, "strided_view_mut"), space());
  }

  // --- host access (Host owners only)

  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  T* data() noexcept {
    return raw();
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T* data() const noexcept {
    return raw();
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Span<T> as_slice() noexcept {
    return {raw(), static_cast<std::size_t>(numel())};
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  Span<const T> as_slice() const noexcept {
    return {raw(), static_cast<std::size_t>(numel())};
  }
  /// Checked access: RankMismatch or IndexOutOfBounds.
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  T& at(Span<const Index> index) {
    return raw()[checked_offset(index)];
  }
  template <class Q = Rep, impl::EnableIfHost<Q> = 0>
  const T& at(Span<const Index> index) const {
    return raw()[checked_offset(index)];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  T& at(I... index) {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value,
                  "at(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return raw()[checked_offset(Span<const Index>(ix.data(), ix.size()))];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& at(I... index) const {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value,
                  "at(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return raw()[checked_offset(Span<const Index>(ix.data(), ix.size()))];
  }
  /// Unchecked access (asserts in debug builds).
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  T& operator()(I... index) noexcept {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value, "(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return raw()[unchecked_offset(ix.data(), ix.size())];
  }
  template <class... I, class Q = Rep, impl::EnableIfHost<Q> = 0,
            class = std::enable_if_t<impl::all_integral<I...>::value>>
  const T& operator()(I... index) const noexcept {
    static_assert(!impl::wrong_static_arity<R, sizeof...(I)>::value, "(): index count differs from the rank");
    const std::array<Index, sizeof...(I)> ix{static_cast<Index>(index)...};
    return raw()[unchecked_offset(ix.data(), ix.size())];
  }

  /// Deep copy into a new plain allocation. Host: copyable T, sequential; Device: numeric T, a device
  /// copy on DeviceExecSpace. (Dynamic owners have no clone: narrow first.)
  template <class Q = Rep, std::enable_if_t<!std::is_same<Q, Dynamic>::value, int> = 0>
  Tensor clone() const {
    if constexpr (std::is_same<Rep, Host>::value) {
      return impl::compact_host<T, R>(view());
    } else {
      return impl::compact_device<T, R>(DeviceExecSpace(), view());
    }
  }

  // --- conversions (consume the owner; a failure returns it unchanged)

  /// Re-tags the representation as Dynamic; no data, shape or allocation change.
  Tensor<T, R, Dynamic> into_dynamic() && {
    using Target = Tensor<T, R, Dynamic>;
    if constexpr (std::is_same<Rep, Dynamic>::value) {
      return std::move(*this);
    } else {
      return impl::TensorAccess::make<Target>(
          std::move(shape_), typename impl::StorageOf<T, Dynamic>::type(std::move(storage_)));
    }
  }
  /// Checked narrowing of a Dynamic owner whose elements live in host memory.
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<Tensor<T, R, Host>, ConversionFailure<Tensor>> into_host() && {
    if (storage_.index() != 0)
      return unexpected(ConversionFailure<Tensor>{
          ConversionCause::NotHostResident, std::move(*this),
          "into_host: the elements live in device memory (download() or map_read() them)"});
    return impl::TensorAccess::make<Tensor<T, R, Host>>(std::move(shape_), std::get<0>(std::move(storage_)));
  }
  /// Checked narrowing of a Dynamic owner whose elements live in device memory.
  template <class Q = Rep, impl::EnableIfDynamic<Q> = 0>
  Result<Tensor<T, R, Device>, ConversionFailure<Tensor>> into_device() && {
    if (storage_.index() != 1)
      return unexpected(
          ConversionFailure<Tensor>{ConversionCause::NotDeviceResident, std::move(*this),
                                    "into_device: the elements live in host memory (upload() them)"});
    return impl::TensorAccess::make<Tensor<T, R, Device>>(std::move(shape_),
                                                          std::get<1>(std::move(storage_)));
  }
  /// Rank-only conversion; RankMismatch returns the owner.
  template <std::size_t N>
  Result<Tensor<T, Rank<N>, Rep>, ConversionFailure<Tensor>> into_rank() && {
    if (rank() != N) {
      std::string detail =
          "into_rank: a rank-" + std::to_string(rank()) + " tensor is not rank " + std::to_string(N);
      return unexpected(
          ConversionFailure<Tensor>{ConversionCause::RankMismatch, std::move(*this), std::move(detail)});
    }
    auto shape = impl::extents_from<Rank<N>>(span_of(shape_), "into_rank");
    return impl::TensorAccess::make<Tensor<T, Rank<N>, Rep>>(shape, std::move(storage_));
  }
  Tensor<T, DynRank, Rep> into_dyn() && {
    return impl::TensorAccess::make<Tensor<T, DynRank, Rep>>(Shape(span_of(shape_)), std::move(storage_));
  }
  /// The same compact elements under another shape; ElementCountMismatch returns the owner.
  Result<Tensor<T, DynRank, Rep>, ConversionFailure<Tensor>> reshape(Span<const Index> new_shape) && {
    Index count = -1;
    std::string detail;
    try {
      count = impl::checked_numel(new_shape, "reshape");
    } catch (const StorageError& e) {
      detail = e.what();
    }
    if (count != numel()) {
      if (detail.empty())
        detail = "reshape: " + std::to_string(numel()) + " elements cannot take a shape of " +
                 std::to_string(count) + " elements";
      return unexpected(ConversionFailure<Tensor>{ConversionCause::ElementCountMismatch, std::move(*this),
                                                  std::move(detail)});
    }
    return impl::TensorAccess::make<Tensor<T, DynRank, Rep>>(Shape(new_shape), std::move(storage_));
  }

 private:
  friend struct impl::TensorAccess;
  template <class, class, class>
  friend class Tensor;

  Tensor(extents_type shape, Storage storage) noexcept
      : shape_(std::move(shape)), storage_(std::move(storage)) {}

  static Span<const Index> span_of(const extents_type& e) noexcept { return {e.data(), e.size()}; }
  static void check_length(Index n, std::size_t length, const char* where) {
    if (static_cast<std::uint64_t>(n) != length)
      impl::throw_storage_error(
          StorageErrc::LengthMismatch, where,
          "the shape holds " + std::to_string(n) + " elements, the data " + std::to_string(length));
  }
  T* raw() const noexcept { return impl::storage_data<T>(storage_); }
  Index checked_offset(Span<const Index> index) const {
    if (index.size() != rank())
      impl::throw_storage_error(
          StorageErrc::RankMismatch, "at",
          std::to_string(index.size()) + " indices for a rank-" + std::to_string(rank()) + " tensor");
    for (std::size_t d = 0; d < rank(); ++d)
      if (index[d] < 0 || index[d] >= shape_[d])
        impl::throw_storage_error(StorageErrc::IndexOutOfBounds, "at",
                                  "index " + std::to_string(index[d]) + " of dimension " + std::to_string(d) +
                                      " is outside [0, " + std::to_string(shape_[d]) + ")");
    return impl::compact_offset(span_of(shape_), index.data());
  }
  Index unchecked_offset(const Index* index, std::size_t count) const noexcept {
    assert(count == rank());
    (void)count;
    return impl::compact_offset(span_of(shape_), index);
  }

  extents_type shape_;
  Storage storage_;
};

template <class T, class R, class Rep>
template <class M, class Q, std::enable_if_t<!std::is_same<Q, Dynamic>::value, int>>
Tensor<T, R, Rep> Tensor<T, R, Rep>::zeros(extents_type shape, const std::shared_ptr<BufferPool<M>>& pool) {
  impl::require_numeric<T>();
  const Index n = impl::checked_elements<T>(span_of(shape), "zeros");
  PooledBlock<M> block = pool->checkout(static_cast<std::size_t>(n) * sizeof(T));
  if constexpr (std::is_same<Rep, Host>::value) {
    static_assert(std::is_same<M, Kokkos::HostSpace>::value, "Host tensors come from a HostPool");
    if (n > 0) std::memset(block.data(), 0, static_cast<std::size_t>(n) * sizeof(T));
    return Tensor(std::move(shape), Storage(impl::HostStorage<T>(std::move(block))));
  } else {
    static_assert(std::is_same<M, DeviceMemorySpace>::value, "Device tensors come from a DevicePool");
    DeviceExecSpace exec;
    impl::fill_zero(exec, static_cast<T*>(block.data()), n);
    exec.fence();
    return Tensor(std::move(shape), Storage(impl::DeviceBuffer(std::move(block))));
  }
}

namespace impl {

template <class T, class R, class V>
Tensor<T, R, Host> compact_host(const V& view) {
  static_assert(std::is_copy_constructible<T>::value, "compaction copies elements");
  PlainBuilder<T> out(static_cast<std::size_t>(view.numel()));
  const T* base = view.base();
  for_each_strided(view.shape(), view.strides(), view.offset(), [&](Index off) { out.push(base[off]); });
  return TensorAccess::make<Tensor<T, R, Host>>(extents_from<R>(view.shape(), "to_col_major"),
                                                HostStorage<T>(std::move(out).finish()));
}

template <class T, class R, class ExecSpace, class V>
Tensor<T, R, Device> compact_device(const ExecSpace& exec, const V& view) {
  require_numeric<T>();
  const Index n = view.numel();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  KokkosBlock block(bytes, kDeviceTensorLabel);
  if (view.is_compact()) {
    copy_bytes<DeviceMemorySpace, DeviceMemorySpace>(exec, block.data(), view.base() + view.offset(), bytes);
    exec.fence();
  } else {
    gather_to_compact(exec, static_cast<T*>(block.data()), static_cast<const T*>(view.base()), view.window(),
                      view.shape(), view.strides(), view.offset(), n);
  }
  return TensorAccess::make<Tensor<T, R, Device>>(extents_from<R>(view.shape(), "to_col_major"),
                                                  DeviceBuffer(std::move(block)));
}

}  // namespace impl

}  // namespace tfbench
