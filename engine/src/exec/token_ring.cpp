#include "token_ring.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tfbench::impl {

struct TokenRingStorage {
  NativeSessionRef slots[TokenRing::kSlots];
  std::size_t next = 0;            // touched by the owning thread only
  std::atomic<bool> owned{false};  // a thread uses this ring

  bool contains(const NativeSessionRef* p) const noexcept {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const auto begin = reinterpret_cast<std::uintptr_t>(&slots[0]);
    return at >= begin && at < begin + sizeof(slots);
  }
  // The slot p is, or nullptr when p points inside the ring but not at a slot (not a token).
  const NativeSessionRef* slot_at(const NativeSessionRef* p) const noexcept {
    const auto offset = reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(&slots[0]);
    return offset % sizeof(NativeSessionRef) == 0 ? &slots[offset / sizeof(NativeSessionRef)] : nullptr;
  }
};

namespace {

// Every ring ever made; never shrinks, so a pointer into a ring stays readable.
struct RingRegistry {
  std::mutex mutex;
  std::vector<std::unique_ptr<TokenRingStorage>> rings;

  TokenRingStorage* adopt() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& ring : rings) {
      bool expected = false;
      if (ring->owned.compare_exchange_strong(expected, true)) return ring.get();
    }
    rings.push_back(std::make_unique<TokenRingStorage>());
    rings.back()->owned.store(true);
    return rings.back().get();
  }
};

RingRegistry& registry() {
  static RingRegistry* instance = new RingRegistry();  // outlives every thread's exit
  return *instance;
}

// This thread's ring, adopted at its first session and handed back when the thread ends.
struct ThreadRing {
  TokenRingStorage* ring = nullptr;
  ~ThreadRing() {
    if (ring) ring->owned.store(false, std::memory_order_release);
  }
};
thread_local ThreadRing this_thread_ring;

TokenRingStorage* own_ring() {
  if (!this_thread_ring.ring) this_thread_ring.ring = registry().adopt();
  return this_thread_ring.ring;
}

}  // namespace

NativeSessionRef* TokenRing::acquire(const void* marker, void* native) noexcept {
  TokenRingStorage* ring = own_ring();
  for (std::size_t probe = 0; probe < kSlots; ++probe) {
    NativeSessionRef& slot = ring->slots[(ring->next + probe) % kSlots];
    // A slot left live by a held session of this ring's earlier thread is skipped.
    if (slot.live_.load(std::memory_order_acquire)) continue;
    slot.marker_ = marker;
    slot.native_ = native;
    slot.owner_ = std::this_thread::get_id();
    slot.live_.store(true, std::memory_order_release);
    ring->next = (ring->next + probe + 1) % kSlots;
    return &slot;
  }
  return nullptr;
}

void TokenRing::release(NativeSessionRef* token) noexcept {
  if (token) token->live_.store(false, std::memory_order_release);
}

TokenRing::Liveness TokenRing::check(const NativeSessionRef* token) noexcept {
  if (TokenRingStorage* mine = this_thread_ring.ring; mine && mine->contains(token)) {
    const NativeSessionRef* slot = mine->slot_at(token);
    return slot && slot->live_.load(std::memory_order_acquire) ? Liveness::LiveHere : Liveness::Expired;
  }
  auto& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  for (const auto& ring : reg.rings) {
    if (!ring->contains(token)) continue;
    const NativeSessionRef* slot = ring->slot_at(token);
    return slot && slot->live_.load(std::memory_order_acquire) ? Liveness::LiveElsewhere : Liveness::Expired;
  }
  return Liveness::Expired;
}

}  // namespace tfbench::impl
