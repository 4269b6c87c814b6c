#pragma once
// A ScratchArena over labelled Kokkos Views of one memory space: every take() is its own View,
// released with the arena. The arena of operations run outside a session's scratch leases.

#include <Kokkos_Core.hpp>

#include <vector>

#include "tfbench/engine/ops/impl/scratch.hpp"

namespace tfbench::impl {

template <class MemorySpace>
class ViewScratchArena final : public ScratchArena {
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

}  // namespace tfbench::impl
