#pragma once
// Publishing a fully initialized pooled lease as a tensor (the storage half of leases). The exec concern
// checks an output block out of a pool, writes every element (a kernel, a copy), and only then turns
// the block into an owner here. The result has the Pooled allocation kind: its block goes back to the
// pool exactly once when the owner dies, or is freed if the pool is gone.
//
// This is internal (namespace impl): the caller guarantees that every one of numel(shape) elements is
// initialized. It is the only way from raw bytes to a tensor; users never see uninitialized elements.

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench::impl {

/// Rep is Host (block from a HostPool) or Device (block from a DevicePool); numel(shape) elements of T
/// must fit the block (BlockTooSmall) and its start must be aligned for T (Misaligned). On a rejected
/// argument the block stays with the caller.
template <class T, class Rep, class R = DynRank, class M>
Tensor<T, R, Rep> adopt_initialized(PooledBlock<M>&& block, Extents<R> shape) {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                "pooled tensors hold trivially copyable elements");
  static_assert(!std::is_same<Rep, Dynamic>::value, "adopt as Host or Device, then into_dynamic()");
  const Index n = checked_elements<T>(Span<const Index>(shape.data(), shape.size()), "adopt_initialized");
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (bytes > block.bytes())
    throw_storage_error(StorageErrc::BlockTooSmall, "adopt_initialized",
                        std::to_string(n) + " elements need " + std::to_string(bytes) +
                            " bytes, the block has " + std::to_string(block.bytes()));
  if (reinterpret_cast<std::uintptr_t>(block.data()) % alignof(T) != 0)
    throw_storage_error(StorageErrc::Misaligned, "adopt_initialized",
                        "the block is not aligned for the element");
  if constexpr (std::is_same<Rep, Host>::value) {
    static_assert(std::is_same<M, Kokkos::HostSpace>::value, "Host tensors adopt HostPool blocks");
    return TensorAccess::make<Tensor<T, R, Host>>(std::move(shape), HostStorage<T>(std::move(block)));
  } else {
    static_assert(std::is_same<M, DeviceMemorySpace>::value, "Device tensors adopt DevicePool blocks");
    require_numeric<T>();
    return TensorAccess::make<Tensor<T, R, Device>>(std::move(shape), DeviceBuffer(std::move(block)));
  }
}

/// Static-rank form: the rank is deduced from the std::array shape.
template <class T, class Rep, std::size_t N, class M>
Tensor<T, Rank<N>, Rep> adopt_initialized(PooledBlock<M>&& block, std::array<Index, N> shape) {
  return adopt_initialized<T, Rep, Rank<N>>(std::move(block), shape);
}

}  // namespace tfbench::impl
