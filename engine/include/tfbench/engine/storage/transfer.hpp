#pragma once
// Explicit transfers between host and device memory: upload() makes a Device owner from Host
// data, download() a Host owner from Device data, each one Kokkos deep_copy through the right memory
// spaces (a non-compact source is compacted on its own side first). Nothing else in storage moves
// elements between spaces implicitly. Every transfer and staged mapping is counted in a process-wide
// TransferStats the workloads read before and after a measurement.
//
// On host builds DeviceMemorySpace is HostSpace: a transfer is still a real copy between two
// allocations, so resident and transferring code paths stay distinguishable.

#include <cstdint>

#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench {

struct TransferStats {
  std::uint64_t uploads = 0;
  std::uint64_t downloads = 0;
  std::uint64_t bytes_uploaded = 0;
  std::uint64_t bytes_downloaded = 0;
  std::uint64_t zero_copy_maps = 0;      // map_read/map_write that borrowed host-accessible memory
  std::uint64_t staged_maps = 0;         // map_read/map_write that copied into a host staging buffer
  std::uint64_t staged_write_backs = 0;  // staged map_write publications (finish or destruction)
  std::uint64_t bytes_staged = 0;        // bytes copied by staged mappings, both directions
};

/// A snapshot of the process-wide counters (monotonic; subtract two snapshots for a delta).
TransferStats transfer_stats() noexcept;
TransferStats operator-(const TransferStats& after, const TransferStats& before) noexcept;

namespace impl {
void record_upload(std::uint64_t bytes) noexcept;
void record_download(std::uint64_t bytes) noexcept;
void record_map(bool zero_copy, std::uint64_t bytes_staged) noexcept;
void record_write_back(std::uint64_t bytes) noexcept;
}  // namespace impl

/// A new Device owner holding the elements of src (compact column-major), copied on exec (fenced).
template <class ExecSpace, class T, class R>
Tensor<T, R, Device> upload(const ExecSpace& exec, const TensorView<T, R, Host>& src) {
  impl::require_numeric<T>();
  const Index n = src.numel();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  impl::KokkosBlock block(bytes, impl::kDeviceTensorLabel);
  if (src.is_compact()) {
    impl::copy_bytes<DeviceMemorySpace, Kokkos::HostSpace>(exec, block.data(), src.data(), bytes);
    exec.fence();
  } else {
    const Tensor<T, R, Host> packed = src.to_col_major();
    impl::copy_bytes<DeviceMemorySpace, Kokkos::HostSpace>(exec, block.data(), packed.data(), bytes);
    exec.fence();
  }
  impl::record_upload(bytes);
  return impl::TensorAccess::make<Tensor<T, R, Device>>(impl::extents_from<R>(src.shape(), "upload"),
                                                        impl::DeviceBuffer(std::move(block)));
}
template <class T, class R>
Tensor<T, R, Device> upload(const TensorView<T, R, Host>& src) {
  return upload(DeviceExecSpace(), src);
}
template <class ExecSpace, class T, class R>
Tensor<T, R, Device> upload(const ExecSpace& exec, const Tensor<T, R, Host>& src) {
  return upload(exec, src.view());
}
template <class T, class R>
Tensor<T, R, Device> upload(const Tensor<T, R, Host>& src) {
  return upload(DeviceExecSpace(), src.view());
}

/// A new plain Host owner holding the elements of src (compact column-major), copied on exec (fenced).
/// A non-compact source is first gathered on the device into a compact staging allocation (by a kernel
/// on exec, or on DeviceExecSpace when exec cannot reach device memory).
template <class ExecSpace, class T, class R>
Tensor<T, R, Host> download(const ExecSpace& exec, const TensorView<T, R, Device>& src) {
  impl::require_numeric<T>();
  const Index n = src.numel();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  auto plain = typename impl::PlainVec<T>::type(static_cast<std::size_t>(n));
  if (src.is_compact()) {
    impl::copy_bytes<Kokkos::HostSpace, DeviceMemorySpace>(exec, plain.data(), src.base() + src.offset(),
                                                           bytes);
    exec.fence();
  } else {
    impl::KokkosBlock staging(bytes, "tfbench::engine::storage::download_staging");
    // The gather is a kernel: it runs on exec when exec reaches device memory, else on DeviceExecSpace.
    if constexpr (Kokkos::SpaceAccessibility<ExecSpace, DeviceMemorySpace>::accessible)
      impl::gather_to_compact(exec, static_cast<T*>(staging.data()), src.base(), src.window(), src.shape(),
                              src.strides(), src.offset(), n);
    else
      impl::gather_to_compact(DeviceExecSpace(), static_cast<T*>(staging.data()), src.base(), src.window(),
                              src.shape(), src.strides(), src.offset(), n);
    impl::copy_bytes<Kokkos::HostSpace, DeviceMemorySpace>(exec, plain.data(), staging.data(), bytes);
    exec.fence();
  }
  impl::record_download(bytes);
  return impl::TensorAccess::make<Tensor<T, R, Host>>(impl::extents_from<R>(src.shape(), "download"),
                                                      impl::HostStorage<T>(std::move(plain)));
}
template <class T, class R>
Tensor<T, R, Host> download(const TensorView<T, R, Device>& src) {
  return download(DeviceExecSpace(), src);
}
template <class ExecSpace, class T, class R>
Tensor<T, R, Host> download(const ExecSpace& exec, const Tensor<T, R, Device>& src) {
  return download(exec, src.view());
}
template <class T, class R>
Tensor<T, R, Host> download(const Tensor<T, R, Device>& src) {
  return download(DeviceExecSpace(), src.view());
}

}  // namespace tfbench
