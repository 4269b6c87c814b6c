// The chain's operand placement (common/staggered_slab.hpp): every array 64-byte aligned at its own
// 1 KiB offset within a 4 KiB page, the same for every slab, zeroed, disjoint, and alive as long as an
// owner of it is.

#include <catch2/catch.hpp>

#include "common/staggered_slab.hpp"

#include <cstdint>
#include <optional>

namespace {

using tfbench::workloads::StaggeredSlab;

std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

}  // namespace

TEST_CASE("a staggered slab places each array at its own 1 KiB of a page, alike in every slab",
          "[workloads]") {
  for (const std::size_t count : {std::size_t{1}, std::size_t{1000}, std::size_t{1024}, std::size_t{16384}}) {
    const StaggeredSlab<double> first(4, count), second(4, count);
    for (std::size_t k = 0; k < 4; ++k) {
      CHECK(address(first.data(k)) % 64 == 0);
      CHECK(address(first.data(k)) % 4096 == k * 1024);
      CHECK(address(second.data(k)) % 4096 == address(first.data(k)) % 4096);
      if (k > 0) CHECK(address(first.data(k)) >= address(first.data(k - 1) + count));
      for (std::size_t i = 0; i < count; ++i) REQUIRE(first.data(k)[i] == 0.0);
    }
  }
}

TEST_CASE("a staggered slab's owners keep its block alive", "[workloads]") {
  std::optional<StaggeredSlab<double>> slab(std::in_place, 2, 256);
  auto t = slab->tensor(1);
  CHECK(t.numel() == 256);
  CHECK(t.data() == slab->data(1));
  t.data()[255] = 7.0;
  slab.reset();
  CHECK(t.data()[255] == 7.0);
  t.data()[0] = 3.0;
  CHECK(t.data()[0] == 3.0);
}
