#pragma once
// The few kernels storage itself needs, all labelled and portable to CUDA: zero fill, gathering a
// strided device layout into compact order, and byte copies between host and device memory. Kernels
// move elements as opaque words of the element's size and alignment, so std::complex (which has no
// device operators) is copied bit-exactly.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tfbench/engine/storage/representation.hpp"
#include "tfbench/engine/storage/span.hpp"

namespace tfbench::impl {

template <std::size_t Align>
struct WordUnit {
  using type = std::uint64_t;
};
template <>
struct WordUnit<1> {
  using type = std::uint8_t;
};
template <>
struct WordUnit<2> {
  using type = std::uint16_t;
};
template <>
struct WordUnit<4> {
  using type = std::uint32_t;
};

/// Bit-exact stand-in for T inside kernels.
template <class T>
struct ElementWord {
  using Unit = typename WordUnit<(alignof(T) < 8 ? alignof(T) : 8)>::type;
  Unit parts[sizeof(T) / sizeof(Unit)];
};

template <class T, class Space>
using UnmanagedWords = Kokkos::View<ElementWord<T>*, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class ExecSpace>
void require_device_access() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value, "an execution space is required");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, DeviceMemorySpace>::accessible,
                "this execution space cannot access DeviceMemorySpace");
}

/// Sets `count` elements of device memory to all-zero bits (0, 0.0, false, 0+0i).
template <class T, class ExecSpace>
void fill_zero(const ExecSpace& exec, T* data, Index count) {
  require_device_access<ExecSpace>();
  static_assert(sizeof(ElementWord<T>) == sizeof(T), "element word size");
  if (count == 0) return;
  UnmanagedWords<T, DeviceMemorySpace> words(reinterpret_cast<ElementWord<T>*>(data),
                                             static_cast<std::size_t>(count));
  Kokkos::parallel_for(
      "tfbench::engine::storage::fill_zero",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>(exec, 0, count),
      KOKKOS_LAMBDA(const Index i) { words(i) = ElementWord<T>{}; });
}

/// dst[0, n) = the elements of the strided device layout (base, shape, strides, offset) in column-major
/// order; dst and base are DeviceMemorySpace. Fences exec.
template <class T, class ExecSpace>
void gather_to_compact(const ExecSpace& exec, T* dst, const T* base, Index window, Span<const Index> shape,
                       Span<const Index> strides, Index offset, Index count) {
  require_device_access<ExecSpace>();
  if (count == 0) return;
  const int rank = static_cast<int>(shape.size());
  Kokkos::View<Index*, DeviceMemorySpace> meta("tfbench::engine::storage::gather_layout",
                                               2 * shape.size() + 1);
  auto host_meta = Kokkos::create_mirror_view(meta);
  for (int d = 0; d < rank; ++d) {
    host_meta(d) = shape[d];
    host_meta(rank + d) = strides[d];
  }
  Kokkos::deep_copy(exec, meta, host_meta);
  UnmanagedWords<T, DeviceMemorySpace> out(reinterpret_cast<ElementWord<T>*>(dst),
                                           static_cast<std::size_t>(count));
  Kokkos::View<const ElementWord<T>*, DeviceMemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in(
      reinterpret_cast<const ElementWord<T>*>(base), static_cast<std::size_t>(window));
  Kokkos::parallel_for(
      "tfbench::engine::storage::gather_strided",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>(exec, 0, count), KOKKOS_LAMBDA(const Index i) {
        Index rest = i;
        Index off = offset;
        for (int d = 0; d < rank; ++d) {
          const Index extent = meta(d);
          off += (rest % extent) * meta(rank + d);
          rest /= extent;
        }
        out(i) = in(off);
      });
  exec.fence();
}

/// Copies `bytes` from src (memory of SrcSpace) to dst (memory of DstSpace) on exec; does not fence.
template <class DstSpace, class SrcSpace, class ExecSpace>
void copy_bytes(const ExecSpace& exec, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<unsigned char*, DstSpace, Unmanaged> to(static_cast<unsigned char*>(dst), bytes);
  Kokkos::View<const unsigned char*, SrcSpace, Unmanaged> from(static_cast<const unsigned char*>(src), bytes);
  Kokkos::deep_copy(exec, to, from);
}

}  // namespace tfbench::impl
