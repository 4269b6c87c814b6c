#pragma once
// Counts global operator new calls of this test executable (alloc_counter.cpp replaces them).

#include <cstdint>

namespace tfbench::testing {

/// Heap allocations through operator new since the process started.
std::uint64_t heap_allocations() noexcept;

/// Heap allocations since construction.
class AllocationScope {
 public:
  AllocationScope() noexcept : start_(heap_allocations()) {}
  std::uint64_t count() const noexcept { return heap_allocations() - start_; }

 private:
  std::uint64_t start_;
};

}  // namespace tfbench::testing
