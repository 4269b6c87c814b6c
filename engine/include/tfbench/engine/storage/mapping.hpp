#pragma once
// map_read / map_write: host access to a Device (or Dynamic) owner through a guard that owns
// the mapping. The guard, not a view, is returned: views borrow the guard and must not outlive it.
//   - When device memory is host-accessible (host builds) the mapping is zero-copy by default.
//   - Otherwise (CUDA) it is staged: the elements are copied into a host buffer; a write mapping copies
//     them back on finish() or, failing that, on destruction (errors there are swallowed: call finish()
//     to see them).
// MapPolicy::Staged forces the staged path everywhere (a snapshot; also how host builds test it). A
// mapping is not a representation conversion: the owner stays Device. The owner must outlive the guard
// and must not be used by kernels while a write mapping is open.

#include <utility>

#include "tfbench/engine/storage/transfer.hpp"

namespace tfbench {

enum class MapPolicy {
  Auto,    // zero-copy where device memory is host-accessible, else staged
  Staged,  // always copy into a host staging buffer
};
const char* name(MapPolicy policy);

template <class T, class R = DynRank>
class ReadMapping;
template <class T, class R = DynRank>
class WriteMapping;

namespace impl {
template <class T, class R>
ReadMapping<T, R> map_read_raw(const Extents<R>& shape, Index numel, const T* data, MemorySpaceKind space,
                               MapPolicy policy);
template <class T, class R>
WriteMapping<T, R> map_write_raw(const Extents<R>& shape, Index numel, T* data, MemorySpaceKind space,
                                 MapPolicy policy);
}  // namespace impl

template <class T, class R>
class ReadMapping {
 public:
  ReadMapping(ReadMapping&&) noexcept = default;
  ReadMapping& operator=(ReadMapping&&) noexcept = default;
  ReadMapping(const ReadMapping&) = delete;
  ReadMapping& operator=(const ReadMapping&) = delete;

  /// A Host view of the mapped elements, borrowing this guard.
  TensorView<T, R, Host> view() const& {
    return impl::ViewAccess::make<TensorView<T, R, Host>>(host_, impl::compact_layout<R>(shape_, numel_),
                                                          MemorySpaceKind::Host);
  }
  TensorView<T, R, Host> view() && = delete;  // the guard must outlive the view
  bool is_zero_copy() const noexcept { return zero_copy_; }

  template <class T2, class R2>
  friend ReadMapping<T2, R2> impl::map_read_raw(const Extents<R2>& shape, Index numel, const T2* data,
                                                MemorySpaceKind space, MapPolicy policy);

 private:
  ReadMapping(Extents<R> shape, Index numel) : shape_(std::move(shape)), numel_(numel) {}
  Extents<R> shape_;
  Index numel_;
  const T* host_ = nullptr;
  typename impl::PlainVec<T>::type staging_;
  bool zero_copy_ = false;
};

template <class T, class R>
class WriteMapping {
 public:
  WriteMapping(WriteMapping&& other) noexcept
      : shape_(std::move(other.shape_)),
        numel_(other.numel_),
        host_(other.host_),
        target_(other.target_),
        target_space_(other.target_space_),
        staging_(std::move(other.staging_)),
        zero_copy_(other.zero_copy_),
        open_(other.open_) {
    other.open_ = false;
  }
  WriteMapping& operator=(WriteMapping&&) = delete;
  WriteMapping(const WriteMapping&) = delete;
  WriteMapping& operator=(const WriteMapping&) = delete;
  ~WriteMapping() {
    if (open_) {
      try {
        finish();
      } catch (...) {  // a destructor cannot report: finish() explicitly to see errors
      }
    }
  }

  /// Host views of the mapped elements, borrowing this guard; MappingClosed after finish().
  TensorView<T, R, Host> view() const& {
    check_open("WriteMapping::view");
    return impl::ViewAccess::make<TensorView<T, R, Host>>(
        static_cast<const T*>(host_), impl::compact_layout<R>(shape_, numel_), MemorySpaceKind::Host);
  }
  TensorViewMut<T, R, Host> view_mut() & {
    check_open("WriteMapping::view_mut");
    return impl::ViewAccess::make<TensorViewMut<T, R, Host>>(host_, impl::compact_layout<R>(shape_, numel_),
                                                             MemorySpaceKind::Host);
  }
  TensorView<T, R, Host> view() && = delete;
  TensorViewMut<T, R, Host> view_mut() && = delete;
  bool is_zero_copy() const noexcept { return zero_copy_; }
  bool is_open() const noexcept { return open_; }

  /// Publishes host writes to the owner (staged: one copy back, fenced) and closes the mapping.
  /// Idempotent.
  void finish() {
    if (!open_) return;
    open_ = false;
    if (zero_copy_) return;
    const std::size_t bytes = static_cast<std::size_t>(numel_) * sizeof(T);
    DeviceExecSpace exec;
    if (target_space_ == MemorySpaceKind::Device)
      impl::copy_bytes<DeviceMemorySpace, Kokkos::HostSpace>(exec, target_, host_, bytes);
    else
      impl::copy_bytes<Kokkos::HostSpace, Kokkos::HostSpace>(exec, target_, host_, bytes);
    exec.fence();
    impl::record_write_back(bytes);
  }

  template <class T2, class R2>
  friend WriteMapping<T2, R2> impl::map_write_raw(const Extents<R2>& shape, Index numel, T2* data,
                                                  MemorySpaceKind space, MapPolicy policy);

 private:
  WriteMapping(Extents<R> shape, Index numel) : shape_(std::move(shape)), numel_(numel) {}
  void check_open(const char* where) const {
    if (!open_) impl::throw_storage_error(StorageErrc::MappingClosed, where, "the mapping was finished");
  }
  Extents<R> shape_;
  Index numel_;
  T* host_ = nullptr;
  T* target_ = nullptr;
  MemorySpaceKind target_space_ = MemorySpaceKind::Device;
  typename impl::PlainVec<T>::type staging_;
  bool zero_copy_ = false;
  bool open_ = true;
};

namespace impl {
/// Fills `staging` from `data` (memory of `space`) and fences.
template <class T, class Plain>
void stage_copy(Plain& staging, const T* data, MemorySpaceKind space, Index numel) {
  const std::size_t bytes = static_cast<std::size_t>(numel) * sizeof(T);
  DeviceExecSpace exec;
  if (space == MemorySpaceKind::Device)
    copy_bytes<Kokkos::HostSpace, DeviceMemorySpace>(exec, staging.data(), data, bytes);
  else
    copy_bytes<Kokkos::HostSpace, Kokkos::HostSpace>(exec, staging.data(), data, bytes);
  exec.fence();
}
inline bool maps_zero_copy(MemorySpaceKind space, MapPolicy policy) noexcept {
  return policy == MapPolicy::Auto && (space == MemorySpaceKind::Host || kDeviceMemoryIsHostAccessible);
}

template <class T, class R>
ReadMapping<T, R> map_read_raw(const Extents<R>& shape, Index numel, const T* data, MemorySpaceKind space,
                               MapPolicy policy) {
  impl::require_numeric<T>();
  ReadMapping<T, R> m(shape, numel);
  m.zero_copy_ = impl::maps_zero_copy(space, policy);
  if (m.zero_copy_) {
    m.host_ = data;
    impl::record_map(true, 0);
  } else {
    m.staging_ = typename impl::PlainVec<T>::type(static_cast<std::size_t>(numel));
    impl::stage_copy(m.staging_, data, space, numel);
    m.host_ = m.staging_.data();
    impl::record_map(false, static_cast<std::uint64_t>(numel) * sizeof(T));
  }
  return m;
}

template <class T, class R>
WriteMapping<T, R> map_write_raw(const Extents<R>& shape, Index numel, T* data, MemorySpaceKind space,
                                 MapPolicy policy) {
  impl::require_numeric<T>();
  WriteMapping<T, R> m(shape, numel);
  m.target_ = data;
  m.target_space_ = space;
  m.zero_copy_ = impl::maps_zero_copy(space, policy);
  if (m.zero_copy_) {
    m.host_ = data;
    impl::record_map(true, 0);
  } else {
    m.staging_ = typename impl::PlainVec<T>::type(static_cast<std::size_t>(numel));
    impl::stage_copy(m.staging_, static_cast<const T*>(data), space, numel);  // keep unwritten elements
    m.host_ = m.staging_.data();
    impl::record_map(false, static_cast<std::uint64_t>(numel) * sizeof(T));
  }
  return m;
}

}  // namespace impl

/// Read access to a Device owner's elements from the host.
template <class T, class R>
ReadMapping<T, R> map_read(const Tensor<T, R, Device>& t, MapPolicy policy = MapPolicy::Auto) {
  const auto view = t.view();
  return impl::map_read_raw<T, R>(impl::extents_from<R>(t.shape(), "map_read"), t.numel(), view.base(),
                                  MemorySpaceKind::Device, policy);
}
/// Read access to a Dynamic owner's elements, wherever they live.
template <class T, class R>
ReadMapping<T, R> map_read(const Tensor<T, R, Dynamic>& t, MapPolicy policy = MapPolicy::Auto) {
  const auto view = t.view();
  return impl::map_read_raw<T, R>(impl::extents_from<R>(t.shape(), "map_read"), t.numel(), view.base(),
                                  t.space(), policy);
}
/// Exclusive write access to a Device owner's elements from the host.
template <class T, class R>
WriteMapping<T, R> map_write(Tensor<T, R, Device>& t, MapPolicy policy = MapPolicy::Auto) {
  auto view = t.view_mut();
  return impl::map_write_raw<T, R>(impl::extents_from<R>(t.shape(), "map_write"), t.numel(), view.base(),
                                   MemorySpaceKind::Device, policy);
}
template <class T, class R>
WriteMapping<T, R> map_write(Tensor<T, R, Dynamic>& t, MapPolicy policy = MapPolicy::Auto) {
  auto view = t.view_mut();
  return impl::map_write_raw<T, R>(impl::extents_from<R>(t.shape(), "map_write"), t.numel(), view.base(),
                                   t.space(), policy);
}

}  // namespace tfbench
