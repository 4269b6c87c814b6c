#pragma once
// BufferPool<MemorySpace>: a thread-safe cache of raw, 64-byte aligned Kokkos allocations.
// checkout() hands out a PooledBlock, a move-only owning lease that returns its block to the
// pool exactly once when it is destroyed or reset(), or frees it when the pool is already gone (it
// holds only a weak_ptr). The pool's mutex guards bookkeeping only: Kokkos allocation and free run
// outside it, and it is never held across kernels or user code.
//
// Size classes: requests up to 4 KiB round up to a multiple of 64 bytes; larger ones round up to a
// quarter of their power of two (4 classes per doubling, under 25% slack). A cached block is reused
// only for a request of the same class. A released block that would push the cache above
// max_cached_bytes is freed instead of cached.
//
// Blocks are freed with Kokkos::kokkos_free, so every pool and block must be gone before
// Kokkos::finalize.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tfbench/engine/storage/representation.hpp"

namespace tfbench {

struct PoolConfig {
  /// Bytes the pool keeps cached for reuse; releases beyond it free their block.
  std::size_t max_cached_bytes = std::size_t{256} << 20;
};

struct PoolStats {
  std::uint64_t hits = 0;          // checkouts served from the cache
  std::uint64_t misses = 0;        // checkouts that allocated a new block
  std::uint64_t releases = 0;      // blocks given back by their lease (cached or freed)
  std::uint64_t frees = 0;         // blocks the pool returned to Kokkos (over capacity, configure, clear)
  std::uint64_t bytes_live = 0;    // size-class bytes of blocks checked out now
  std::uint64_t bytes_cached = 0;  // size-class bytes of blocks waiting in the cache
  std::uint64_t checkouts_outstanding = 0;
  std::uint64_t blocks_cached = 0;
};

template <class MemorySpace>
class BufferPool;

/// Move-only owner of one block of raw, uninitialized bytes checked out of a BufferPool.
template <class MemorySpace>
class PooledBlock {
  static_assert(Kokkos::is_memory_space<MemorySpace>::value, "PooledBlock needs a Kokkos memory space");

 public:
  using memory_space = MemorySpace;

  PooledBlock() noexcept = default;
  PooledBlock(PooledBlock&& other) noexcept { take(other); }
  PooledBlock& operator=(PooledBlock&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  PooledBlock(const PooledBlock&) = delete;
  PooledBlock& operator=(const PooledBlock&) = delete;
  ~PooledBlock() { reset(); }

  /// Start of the block (64-byte aligned), memory of MemorySpace; null for an empty block.
  void* data() const noexcept { return data_; }
  /// Bytes requested at checkout.
  std::size_t bytes() const noexcept { return bytes_; }
  /// Bytes of the block's size class (>= bytes()).
  std::size_t capacity_bytes() const noexcept { return class_bytes_; }
  /// True when checkout reused a cached block.
  bool was_pool_hit() const noexcept { return hit_; }
  explicit operator bool() const noexcept { return data_ != nullptr; }

  /// Returns the block to its pool if the pool still lives, else frees it; then the lease is empty.
  void reset() noexcept;

 private:
  friend class BufferPool<MemorySpace>;
  PooledBlock(std::weak_ptr<BufferPool<MemorySpace>> pool, void* data, std::size_t bytes,
              std::size_t class_bytes, bool hit) noexcept
      : pool_(std::move(pool)), data_(data), bytes_(bytes), class_bytes_(class_bytes), hit_(hit) {}
  void take(PooledBlock& other) noexcept {
    pool_ = std::move(other.pool_);
    data_ = other.data_;
    bytes_ = other.bytes_;
    class_bytes_ = other.class_bytes_;
    hit_ = other.hit_;
    other.data_ = nullptr;
    other.bytes_ = other.class_bytes_ = 0;
    other.hit_ = false;
  }

  std::weak_ptr<BufferPool<MemorySpace>> pool_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t class_bytes_ = 0;
  bool hit_ = false;
};

template <class MemorySpace>
class BufferPool : public std::enable_shared_from_this<BufferPool<MemorySpace>> {
  static_assert(Kokkos::is_memory_space<MemorySpace>::value, "BufferPool needs a Kokkos memory space");
  struct Passkey {};

 public:
  using memory_space = MemorySpace;

  static std::shared_ptr<BufferPool> create(PoolConfig config = {});
  BufferPool(Passkey, PoolConfig config) : config_(config) {}  // use create()
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();

  /// A block of at least `bytes` bytes, 64-byte aligned; empty for 0 bytes. Throws StorageError
  /// (SizeOverflow) for sizes without a size class and std::bad_alloc when Kokkos cannot allocate.
  PooledBlock<MemorySpace> checkout(std::size_t bytes);
  PoolStats stats() const;
  PoolConfig config() const;
  /// Applies a new limit; cached blocks above it are freed now.
  void configure(PoolConfig config);
  /// Frees every cached block (checked-out blocks are unaffected).
  void clear();

  /// The size class a request of `bytes` is served from; 0 when it would overflow.
  static std::size_t size_class(std::size_t bytes) noexcept;

 private:
  friend class PooledBlock<MemorySpace>;
  void give_back(void* data, std::size_t class_bytes) noexcept;

  mutable std::mutex mutex_;
  PoolConfig config_;
  PoolStats stats_;
  std::unordered_map<std::size_t, std::vector<void*>> cached_;
};

using HostPool = BufferPool<Kokkos::HostSpace>;
using DevicePool = BufferPool<DeviceMemorySpace>;

namespace impl {
/// Process-wide count of blocks freed by their lease because their pool was already destroyed.
std::uint64_t orphan_block_frees() noexcept;
}  // namespace impl

extern template class PooledBlock<Kokkos::HostSpace>;
extern template class BufferPool<Kokkos::HostSpace>;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP) && !defined(KOKKOS_ENABLE_SYCL)
static_assert(std::is_same<DeviceMemorySpace, Kokkos::HostSpace>::value,
              "host builds keep Device tensors in HostSpace");
#else
extern template class PooledBlock<DeviceMemorySpace>;
extern template class BufferPool<DeviceMemorySpace>;
#endif

}  // namespace tfbench
