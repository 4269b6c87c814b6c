// InlineVec: inline up to its capacity, spills beyond, value semantics in both states.
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "alloc_counter.hpp"
#include "tfbench/engine/storage/inline_vec.hpp"
#include "tfbench/engine/storage/tensor.hpp"

using tfbench::Index;
using tfbench::InlineVec;
using tfbench::testing::AllocationScope;

TEST_CASE("InlineVec stays inline up to 8 and spills beyond", "[storage][inline_vec]") {
  std::uint64_t inline_allocs = 0;
  InlineVec<Index, 8> v;
  {
    AllocationScope scope;
    for (Index i = 0; i < 8; ++i) v.push_back(i);
    InlineVec<Index, 8> copy = v;
    InlineVec<Index, 8> moved = std::move(copy);
    moved.resize(3);
    inline_allocs = scope.count();
  }
  CHECK(inline_allocs == 0);
  CHECK(v.is_inline());
  CHECK(v.size() == 8);
  v.push_back(8);
  CHECK_FALSE(v.is_inline());
  CHECK(v.size() == 9);
  for (Index i = 0; i < 9; ++i) CHECK(v[static_cast<std::size_t>(i)] == i);

  InlineVec<Index, 8> copy = v;
  CHECK(copy == v);
  copy[0] = 100;
  CHECK(v[0] == 0);
  InlineVec<Index, 8> moved = std::move(copy);
  CHECK(moved[0] == 100);
  CHECK(copy.empty());
  copy = moved;
  CHECK(copy == moved);
  copy = InlineVec<Index, 8>{1, 2};
  CHECK(copy.size() == 2);
  CHECK(copy != moved);
  moved.pop_back();
  CHECK(moved.size() == 8);
  CHECK(moved.back() == 7);
}

TEST_CASE("shapes convert from contiguous containers", "[storage][inline_vec]") {
  const std::vector<Index> dims{2, 3, 4};
  tfbench::Shape from_vector = dims;
  CHECK(from_vector.size() == 3);
  CHECK(from_vector[2] == 4);
  const std::array<Index, 2> fixed{5, 6};
  tfbench::Shape from_array = fixed;
  CHECK(from_array == tfbench::Shape{5, 6});
  auto t = tfbench::Tensor<double, tfbench::DynRank, tfbench::Host>::zeros(dims);
  CHECK(t.numel() == 24);
}
