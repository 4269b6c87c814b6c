// BufferPool: bookkeeping under a mutex, Kokkos allocation and free outside it.
#include "tfbench/engine/storage/pool.hpp"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "tfbench/engine/storage/error.hpp"

namespace tfbench {
namespace {
constexpr const char* kBlockLabel = "tfbench::engine::storage::pool_block";
constexpr std::size_t kAlignment = 64;
std::atomic<std::uint64_t> g_orphan_frees{0};

template <class M>
void* allocate_block(std::size_t bytes) {
  void* p = Kokkos::kokkos_malloc<M>(std::string(kBlockLabel), bytes);
  if (reinterpret_cast<std::uintptr_t>(p) % kAlignment != 0) {
    Kokkos::kokkos_free<M>(p);
    impl::throw_storage_error(StorageErrc::Misaligned, "BufferPool::checkout",
                              "Kokkos returned a block that is not 64-byte aligned");
  }
  return p;
}
}  // namespace

namespace impl {
std::uint64_t orphan_block_frees() noexcept {
  return g_orphan_frees.load(std::memory_order_relaxed);
}
}  // namespace impl

template <class M>
void PooledBlock<M>::reset() noexcept {
  if (data_ == nullptr) return;
  void* data = data_;
  const std::size_t class_bytes = class_bytes_;
  data_ = nullptr;
  bytes_ = class_bytes_ = 0;
  hit_ = false;
  if (auto pool = pool_.lock()) {
    pool->give_back(data, class_bytes);
  } else {
    Kokkos::kokkos_free<M>(data);
    g_orphan_frees.fetch_add(1, std::memory_order_relaxed);
  }
  pool_.reset();
}

template <class M>
std::shared_ptr<BufferPool<M>> BufferPool<M>::create(PoolConfig config) {
  return std::make_shared<BufferPool>(Passkey{}, config);
}

template <class M>
BufferPool<M>::~BufferPool() {
  for (auto& entry : cached_)
    for (void* p : entry.second) Kokkos::kokkos_free<M>(p);
}

template <class M>
std::size_t BufferPool<M>::size_class(std::size_t bytes) noexcept {
  if (bytes == 0) return 0;
  std::size_t step = kAlignment;
  if (bytes > 4096) {
    std::size_t pow2 = std::size_t{1} << (63 - __builtin_clzll(static_cast<unsigned long long>(bytes)));
    step = pow2 / 4;  // four classes per doubling: under 25% slack
  }
  if (bytes > std::numeric_limits<std::size_t>::max() - (step - 1)) return 0;
  return (bytes + step - 1) / step * step;
}

template <class M>
PooledBlock<M> BufferPool<M>::checkout(std::size_t bytes) {
  if (bytes == 0) return PooledBlock<M>();
  const std::size_t cls = size_class(bytes);
  if (cls == 0)
    impl::throw_storage_error(StorageErrc::SizeOverflow, "BufferPool::checkout",
                              std::to_string(bytes) + " bytes have no size class");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cached_.find(cls);
    if (it != cached_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      ++stats_.hits;
      stats_.bytes_cached -= cls;
      --stats_.blocks_cached;
      stats_.bytes_live += cls;
      ++stats_.checkouts_outstanding;
      return PooledBlock<M>(this->weak_from_this(), p, bytes, cls, true);
    }
  }
  void* p = allocate_block<M>(cls);  // outside the lock
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.misses;
    stats_.bytes_live += cls;
    ++stats_.checkouts_outstanding;
  }
  return PooledBlock<M>(this->weak_from_this(), p, bytes, cls, false);
}

template <class M>
void BufferPool<M>::give_back(void* data, std::size_t cls) noexcept {
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.releases;
    stats_.bytes_live -= cls;
    --stats_.checkouts_outstanding;
    if (stats_.bytes_cached + cls <= config_.max_cached_bytes) {
      try {
        cached_[cls].push_back(data);
        cached = true;
        stats_.bytes_cached += cls;
        ++stats_.blocks_cached;
      } catch (...) {  // no memory for bookkeeping: free the block instead
      }
    }
    if (!cached) ++stats_.frees;
  }
  if (!cached) Kokkos::kokkos_free<M>(data);
}

template <class M>
PoolStats BufferPool<M>::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

template <class M>
PoolConfig BufferPool<M>::config() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return config_;
}

template <class M>
void BufferPool<M>::configure(PoolConfig config) {
  std::vector<void*> victims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    config_ = config;
    for (auto& entry : cached_) {
      while (stats_.bytes_cached > config_.max_cached_bytes && !entry.second.empty()) {
        victims.push_back(entry.second.back());
        entry.second.pop_back();
        stats_.bytes_cached -= entry.first;
        --stats_.blocks_cached;
        ++stats_.frees;
      }
    }
  }
  for (void* p : victims) Kokkos::kokkos_free<M>(p);
}

template <class M>
void BufferPool<M>::clear() {
  std::unordered_map<std::size_t, std::vector<void*>> victims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    victims.swap(cached_);
    stats_.frees += stats_.blocks_cached;
    stats_.bytes_cached = 0;
    stats_.blocks_cached = 0;
  }
  for (auto& entry : victims)
    for (void* p : entry.second) Kokkos::kokkos_free<M>(p);
}

template class PooledBlock<Kokkos::HostSpace>;
template class BufferPool<Kokkos::HostSpace>;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
template class PooledBlock<DeviceMemorySpace>;
template class BufferPool<DeviceMemorySpace>;
#endif

}  // namespace tfbench
