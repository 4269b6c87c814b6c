#pragma once
// Output and scratch leases: owning checkouts of the session's pool. Each lease carries its
// block and the block's single-use return (back to its pool exactly once, or freed if the pool is
// gone), never a lock on the pool, so one output and any number of scratch leases coexist and outlive
// nothing but their own scope. An output lease is uninitialized storage: only publish() turns it into a
// tensor, after the caller wrote every element; dropping it unpublished (an error, an exception)
// returns the block without exposing its elements or leaking accounting.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/storage/lease.hpp"
#include "tfbench/engine/storage/pool.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench {

/// Misuse of a lease: publishing twice, or as the wrong representation.
class LeaseError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Per-backend lease counters (also after the backend is gone: leases share them).
struct LeaseStats {
  std::uint64_t outputs_opened = 0;
  std::uint64_t outputs_published = 0;
  std::uint64_t outputs_discarded = 0;  // dropped unpublished: the block went back, nothing was exposed
  std::uint64_t scratch_opened = 0;
};

namespace impl {
struct LeaseCounters {
  std::atomic<std::uint64_t> outputs_opened{0};
  std::atomic<std::uint64_t> outputs_published{0};
  std::atomic<std::uint64_t> outputs_discarded{0};
  std::atomic<std::uint64_t> scratch_opened{0};
  LeaseStats snapshot() const {
    return LeaseStats{outputs_opened.load(), outputs_published.load(), outputs_discarded.load(),
                      scratch_opened.load()};
  }
};
}  // namespace impl

/// Raw, uninitialized scratch bytes in the session's memory (host for CPU sessions, the device memory
/// space for device sessions), 64-byte aligned. Move-only; never becomes a tensor.
class ScratchLease {
 public:
  ScratchLease() = default;
  ScratchLease(ScratchLease&&) noexcept = default;
  ScratchLease& operator=(ScratchLease&&) noexcept = default;
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  void* data() const noexcept { return memory_ == MemoryKind::Host ? host_.data() : device_.data(); }
  std::size_t bytes() const noexcept { return memory_ == MemoryKind::Host ? host_.bytes() : device_.bytes(); }
  MemoryKind memory() const noexcept { return memory_; }
  bool was_pool_hit() const noexcept {
    return memory_ == MemoryKind::Host ? host_.was_pool_hit() : device_.was_pool_hit();
  }
  explicit operator bool() const noexcept { return data() != nullptr; }
  /// The bytes as `count` elements of T (typed error if they do not fit).
  template <class T>
  T* as(std::size_t count) const {
    if (count > bytes() / sizeof(T)) {
      throw LeaseError("ScratchLease::as: " + std::to_string(count) + " elements of " +
                       std::to_string(sizeof(T)) + " bytes exceed the lease's " + std::to_string(bytes()) +
                       " bytes");
    }
    return static_cast<T*>(data());
  }
  /// Gives the block back now (also what destruction does).
  void release() noexcept {
    host_.reset();
    device_.reset();
  }

 private:
  friend class Session;
  PooledBlock<Kokkos::HostSpace> host_;
  PooledBlock<DeviceMemorySpace> device_;
  MemoryKind memory_ = MemoryKind::Host;
};

/// An owning, uninitialized output of numel(shape) elements of T in the session's memory.
template <class T, class R = DynRank>
class OutputLease {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                "output leases hold trivially copyable elements");

 public:
  OutputLease(OutputLease&& other) noexcept
      : host_(std::move(other.host_)),
        device_(std::move(other.device_)),
        shape_(std::move(other.shape_)),
        numel_(other.numel_),
        memory_(other.memory_),
        counters_(std::move(other.counters_)) {}
  OutputLease& operator=(OutputLease&&) = delete;
  OutputLease(const OutputLease&) = delete;
  OutputLease& operator=(const OutputLease&) = delete;
  ~OutputLease() { discard(); }

  /// Where to write the elements (column-major); memory of memory(). Uninitialized until written.
  T* data() const noexcept {
    return static_cast<T*>(memory_ == MemoryKind::Host ? host_.data() : device_.data());
  }
  Index numel() const noexcept { return numel_; }
  const Extents<R>& shape() const noexcept { return shape_; }
  MemoryKind memory() const noexcept { return memory_; }
  /// False once published or discarded.
  bool open() const noexcept { return counters_ != nullptr; }

  /// The caller has written all numel() elements: the block becomes a pooled Host tensor.
  Tensor<T, R, Host> publish_host() && {
    check_publish(MemoryKind::Host, "publish_host");
    auto tensor = impl::adopt_initialized<T, Host>(std::move(host_), std::move(shape_));
    published();
    return tensor;
  }
  /// The caller has written all numel() elements: the block becomes a pooled Device tensor.
  Tensor<T, R, Device> publish_device() && {
    check_publish(MemoryKind::Device, "publish_device");
    auto tensor = impl::adopt_initialized<T, Device>(std::move(device_), std::move(shape_));
    published();
    return tensor;
  }
  /// Either of the above, as a Dynamic tensor.
  Tensor<T, R, Dynamic> publish() && {
    if (memory_ == MemoryKind::Host) return std::move(*this).publish_host().into_dynamic();
    return std::move(*this).publish_device().into_dynamic();
  }
  /// Returns the block unpublished (what destruction does).
  void discard() noexcept {
    if (!counters_) return;
    host_.reset();
    device_.reset();
    counters_->outputs_discarded.fetch_add(1, std::memory_order_relaxed);
    counters_.reset();
  }

 private:
  friend class Session;
  OutputLease(PooledBlock<Kokkos::HostSpace>&& host, PooledBlock<DeviceMemorySpace>&& device,
              Extents<R> shape, Index numel, MemoryKind memory, std::shared_ptr<impl::LeaseCounters> counters)
      : host_(std::move(host)),
        device_(std::move(device)),
        shape_(std::move(shape)),
        numel_(numel),
        memory_(memory),
        counters_(std::move(counters)) {
    counters_->outputs_opened.fetch_add(1, std::memory_order_relaxed);
  }
  void check_publish(MemoryKind wanted, const char* where) const {
    if (!counters_)
      throw LeaseError(std::string("OutputLease::") + where + ": already published or discarded");
    if (memory_ != wanted) {
      throw LeaseError(std::string("OutputLease::") + where + ": the lease is in " + name(memory_) +
                       " memory");
    }
  }
  void published() noexcept {
    counters_->outputs_published.fetch_add(1, std::memory_order_relaxed);
    counters_.reset();
  }

  PooledBlock<Kokkos::HostSpace> host_;
  PooledBlock<DeviceMemorySpace> device_;
  Extents<R> shape_;
  Index numel_ = 0;
  MemoryKind memory_ = MemoryKind::Host;
  std::shared_ptr<impl::LeaseCounters> counters_;  // the single-use publication token
};

}  // namespace tfbench
