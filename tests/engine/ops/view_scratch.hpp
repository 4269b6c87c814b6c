#pragma once
// A ScratchArena over labelled Kokkos Views of one memory space: every take() is its own View,
// released with the arena. The impl-level contraction tests run programs outside any session, so
// without a session's scratch leases: this is their arena.

#include <Kokkos_Core.hpp>

#include <vector>

#include "tfbench/engine/ops/impl/scratch.hpp"

namespace tfbench::testing {

template <class MemorySpace>
class ViewScratchArena final : public impl::ScratchArena {
  static_assert(Kokkos::is_memory_space<MemorySpace>::value, "ViewScratchArena needs a memory space");

 public:
  std::size_t buffers() const { return views_.size(); }

 protected:
  void* take_bytes(std::size_t bytes) override {
    // Doubles as the element unit keeps every buffer aligned for complex<double>.
    const std::size_t words = (bytes + 15) / 16;
    views_.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tfbench::engine::ops::scratch"),
                        2 * words);
    return views_.back().data();
  }

 private:
  std::vector<Kokkos::View<double*, MemorySpace>> views_;
};

}  // namespace tfbench::testing
