#pragma once
// Kokkos::View bridges for kernels: an unmanaged rank-N View of the elements of a Host or Device
// tensor view, in the memory space they live in (HostSpace or DeviceMemorySpace). Nothing is copied and
// nothing is allocated. std::complex<R> elements appear as Kokkos::complex<R> (same layout; the
// alignment is checked), which is what device kernels and Kokkos Kernels use.
//
//   kokkos_view<N>(v)       LayoutStride, any non-negative strides (NegativeStride otherwise)
//   kokkos_view_left<N>(v)  LayoutLeft, compact column-major views only (NotCompact otherwise)
//
// Dynamic views must be narrowed first (into_host / into_device). The View borrows like the tensor
// view it came from.

#include <Kokkos_Core.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tfbench/engine/storage/tensor_view.hpp"

namespace tfbench {

/// The element type kernels see: Kokkos::complex for std::complex, T otherwise.
template <class T>
struct kokkos_value {
  using type = T;
};
template <class R>
struct kokkos_value<std::complex<R>> {
  using type = Kokkos::complex<R>;
};
template <class T>
using kokkos_value_t = typename kokkos_value<T>::type;

/// The Kokkos memory space of a static representation.
template <class Rep>
struct memory_space_of {
  static_assert(!std::is_same<Rep, Dynamic>::value, "narrow a Dynamic view (into_host / into_device) first");
};
template <>
struct memory_space_of<Host> {
  using type = Kokkos::HostSpace;
};
template <>
struct memory_space_of<Device> {
  using type = DeviceMemorySpace;
};

namespace impl {
template <class T, std::size_t N>
struct ViewDataType {
  using type = typename ViewDataType<T, N - 1>::type*;
};
template <class T>
struct ViewDataType<T, 0> {
  using type = T;
};

template <class E, class Layout, class Rep, std::size_t N>
using BridgeView = Kokkos::View<typename ViewDataType<E, N>::type, Layout,
                                typename memory_space_of<Rep>::type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <std::size_t N, class V>
void check_bridge(const V& v, bool need_compact, const void* origin, std::size_t align, const char* where) {
  static_assert(N <= 8, "Kokkos Views have at most rank 8");
  if (v.rank() != N)
    throw_storage_error(StorageErrc::RankMismatch, where,
                        "a rank-" + std::to_string(v.rank()) + " view is not rank " + std::to_string(N));
  if (need_compact && !v.is_compact())
    throw_storage_error(StorageErrc::NotCompact, where, "LayoutLeft needs a compact column-major view");
  for (std::size_t d = 0; d < N; ++d)
    if (v.shape()[d] > 1 && v.strides()[d] < 0)
      throw_storage_error(StorageErrc::NegativeStride, where,
                          "dimension " + std::to_string(d) + " has stride " + std::to_string(v.strides()[d]) +
                              "; compact it first (to_col_major)");
  if (reinterpret_cast<std::uintptr_t>(origin) % align != 0)
    throw_storage_error(StorageErrc::Misaligned, where,
                        "the elements are not aligned for the Kokkos element type");
}

template <std::size_t N, class V>
Kokkos::LayoutStride stride_layout(const V& v) noexcept {
  Kokkos::LayoutStride layout;
  for (std::size_t d = 0; d < N; ++d) {
    layout.dimension[d] = static_cast<std::size_t>(v.shape()[d]);
    const Index s = v.strides()[d];
    layout.stride[d] = static_cast<std::size_t>(s > 0 ? s : 1);  // only extents <= 1 reach here with s <= 0
  }
  return layout;
}

template <std::size_t N, class V>
Kokkos::LayoutLeft left_layout(const V& v) noexcept {
  Kokkos::LayoutLeft layout;
  for (std::size_t d = 0; d < N; ++d) layout.dimension[d] = static_cast<std::size_t>(v.shape()[d]);
  return layout;
}
}  // namespace impl

template <std::size_t N, class T, class R, class Rep>
impl::BridgeView<const kokkos_value_t<T>, Kokkos::LayoutStride, Rep, N> kokkos_view(
    const TensorView<T, R, Rep>& v) {
  using E = const kokkos_value_t<T>;
  using Out = impl::BridgeView<E, Kokkos::LayoutStride, Rep, N>;
  const T* origin = v.base() + v.offset();
  impl::check_bridge<N>(v, false, origin, alignof(E), "kokkos_view");
  return Out(reinterpret_cast<E*>(origin), impl::stride_layout<N>(v));
}

template <std::size_t N, class T, class R, class Rep>
impl::BridgeView<kokkos_value_t<T>, Kokkos::LayoutStride, Rep, N> kokkos_view(
    const TensorViewMut<T, R, Rep>& v) {
  using E = kokkos_value_t<T>;
  using Out = impl::BridgeView<E, Kokkos::LayoutStride, Rep, N>;
  T* origin = v.base() + v.offset();
  impl::check_bridge<N>(v, false, origin, alignof(E), "kokkos_view");
  return Out(reinterpret_cast<E*>(origin), impl::stride_layout<N>(v));
}

template <std::size_t N, class T, class R, class Rep>
impl::BridgeView<const kokkos_value_t<T>, Kokkos::LayoutLeft, Rep, N> kokkos_view_left(
    const TensorView<T, R, Rep>& v) {
  using E = const kokkos_value_t<T>;
  using Out = impl::BridgeView<E, Kokkos::LayoutLeft, Rep, N>;
  const T* origin = v.base() + v.offset();
  impl::check_bridge<N>(v, true, origin, alignof(E), "kokkos_view_left");
  return Out(reinterpret_cast<E*>(origin), impl::left_layout<N>(v));
}

template <std::size_t N, class T, class R, class Rep>
impl::BridgeView<kokkos_value_t<T>, Kokkos::LayoutLeft, Rep, N> kokkos_view_left(
    const TensorViewMut<T, R, Rep>& v) {
  using E = kokkos_value_t<T>;
  using Out = impl::BridgeView<E, Kokkos::LayoutLeft, Rep, N>;
  T* origin = v.base() + v.offset();
  impl::check_bridge<N>(v, true, origin, alignof(E), "kokkos_view_left");
  return Out(reinterpret_cast<E*>(origin), impl::left_layout<N>(v));
}

}  // namespace tfbench
