#pragma once
// The owned payload of a Device tensor: raw bytes in DeviceMemorySpace, from a plain Kokkos
// allocation (kokkos_malloc/kokkos_free), a pooled block, or a managed allocation with a custom
// deleter. It never constructs or destroys elements: Device storage holds numeric element types only,
// and every element is written (by a kernel or a copy) before a tensor is published.

#include <cstddef>
#include <variant>

#include "tfbench/engine/storage/impl/managed.hpp"
#include "tfbench/engine/storage/pool.hpp"
#include "tfbench/engine/storage/representation.hpp"

namespace tfbench::impl {

/// A plain labelled Kokkos allocation in DeviceMemorySpace.
class KokkosBlock {
 public:
  KokkosBlock() noexcept = default;
  /// Allocates `bytes` (nothing for 0) with Kokkos::kokkos_malloc<DeviceMemorySpace>.
  KokkosBlock(std::size_t bytes, const char* label);
  KokkosBlock(KokkosBlock&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  KokkosBlock& operator=(KokkosBlock&& other) noexcept;
  KokkosBlock(const KokkosBlock&) = delete;
  KokkosBlock& operator=(const KokkosBlock&) = delete;
  ~KokkosBlock();
  void* data() const noexcept { return data_; }

 private:
  void* data_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(KokkosBlock&& block) noexcept : alloc_(std::move(block)) {}
  explicit DeviceBuffer(PooledBlock<DeviceMemorySpace>&& block) noexcept : alloc_(std::move(block)) {}
  explicit DeviceBuffer(ManagedAllocation&& managed) noexcept : alloc_(std::move(managed)) {}
  DeviceBuffer(DeviceBuffer&&) noexcept = default;
  DeviceBuffer& operator=(DeviceBuffer&&) noexcept = default;

  void* data() const noexcept {
    switch (alloc_.index()) {
      case 0:
        return std::get<0>(alloc_).data();
      case 1:
        return std::get<1>(alloc_).data();
      default:
        return std::get<2>(alloc_).data();
    }
  }
  AllocationKind kind() const noexcept { return static_cast<AllocationKind>(alloc_.index()); }

 private:
  std::variant<KokkosBlock, PooledBlock<DeviceMemorySpace>, ManagedAllocation> alloc_;
};

}  // namespace tfbench::impl
