// Small-rank metadata never allocates: creating, transforming and erasing views of rank <= 8 performs no heap
// allocation (counted by the replaced global operator new), including the rank-2 complex view that
// becomes a rank-3 real view, for both view kinds and for static and dynamic rank. Larger ranks spill
// to the heap and still work.
#include <catch2/catch.hpp>

#include <complex>
#include <vector>

#include "alloc_counter.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;
using tfbench::testing::AllocationScope;

TEST_CASE("views of rank <= 8 never allocate metadata", "[storage][alloc]") {
  using C = std::complex<double>;
  auto z = Tensor<C, DynRank, Host>::zeros({3, 4});
  auto zf = Tensor<C, Rank<2>, Host>::zeros({3, 4});
  auto x = Tensor<double, DynRank, Host>::zeros({2, 3, 4});
  auto dyn = Tensor<double>::zeros({4, 5});
  auto dev = Tensor<float, DynRank, Device>::zeros({6, 7});
  std::vector<Index> rank8(8, 2);
  auto big = Tensor<float, DynRank, Host>::zeros(Shape(Span<const Index>(rank8)));

  std::uint64_t count = 0;
  double sink = 0;
  {
    AllocationScope scope;
    // Read views: dynamic rank.
    auto v = z.view();
    auto real = v.real_view();  // rank 2 complex -> rank 3 real
    auto real_t = v.permute({1, 0}).slice(0, {0, 4, 2}).real_view();
    auto xr = x.view().permute({2, 0, 1}).slice(1, {1, -1, -1}).slice(0, {0, 4, 3});
    auto reshaped = x.view().reshape({6, 4}).reshape({24});
    auto strided = x.strided_view({4, 3}, {6, 2}, 1);
    // Read views: static rank.
    auto fv = zf.view().permute({1, 0}).slice(1, {0, 3, 2});
    auto freal = zf.view().real_view();
    auto fdyn = zf.view().into_dyn();
    auto back = fdyn.into_rank<2>();
    // Mutable views, both ranks.
    auto mv = z.view_mut().permute({1, 0}).slice(0, {3, -1, -1}).real_view();
    auto fmv = zf.view_mut().slice(0, {0, 2}).real_view();
    auto mx = x.strided_view_mut({4, 3, 2}, {6, 2, 1});  // injectivity check on inline metadata
    auto dm = dyn.view_mut().into_host();
    // Dynamic and Device representations, conversions of views.
    auto dv = dyn.view().into_host();
    auto devv = dev.view().permute({1, 0}).into_dynamic().into_device();
    // Rank 8, the inline capacity.
    auto b8 = big.view().permute({7, 6, 5, 4, 3, 2, 1, 0}).slice(3, {1, 2});
    auto b8m = big.view_mut().reshape({16, 16});
    // Erased operation inputs: borrow, never copy metadata.
    TensorRead r1(v);
    TensorRead r2(fv);
    TensorRead r3(x);  // owner: shape + compact tag
    TensorRead r4(b8);
    TensorWrite w1(mv);
    TensorWrite w2(x);
    auto typed = r2.typed<C>();
    auto typed_w = w2.typed<double>();
    auto strides = r3.layout().strides_value();
    // Element access.
    sink += real.at(1, 2, 3) + real_t.at(0, 1, 1) + xr.at(0, 0, 1) + reshaped.at(5) + strided.at(3, 2);
    sink += fv.at(1, 1).real() + freal.at(1, 2, 3) + back.value().at(2, 3).imag();
    mv.at(0, 1, 1) = 1.0;
    fmv.at(1, 1, 3) = 2.0;
    mx.at(1, 1, 1) = 3.0;
    dm.value().at(0, 0) = 4.0;
    sink += dv.value()(0, 0) + static_cast<double>(devv.value().rank()) + b8.at(0, 0, 0, 0, 0, 0, 0, 0);
    sink += static_cast<double>(b8m.rank() + r1.rank() + r2.rank() + r3.rank() + r4.rank() + w1.rank());
    sink += static_cast<double>(typed.rank() + typed_w.rank() + strides.size());
    count = scope.count();
  }
  CHECK(count == 0);
  CHECK(sink != 0);
  CHECK(z.at(1, 2).real() == 1.0);  // written through the reversed, permuted real view
}

TEST_CASE("adopting a vector and building an owner of rank <= 8 allocates nothing more", "[storage][alloc]") {
  std::vector<double> data(24, 1.0);
  std::uint64_t count = 0;
  bool converted = false;
  {
    AllocationScope scope;
    auto t = Tensor<double, DynRank, Host>::from_col_major({2, 3, 4}, std::move(data));
    auto d = std::move(t).into_dynamic();
    auto h = std::move(d).into_host();
    auto fixed = std::move(h.value()).into_rank<3>();
    converted = fixed.has_value() && fixed.value().at(1, 2, 3) == 1.0;
    count = scope.count();
  }
  CHECK(converted);
  CHECK(count == 0);
}

TEST_CASE("ranks above 8 spill to the heap and still work", "[storage][alloc]") {
  std::vector<Index> shape9(9, 2);
  auto t = Tensor<int, DynRank, Host>::zeros(Shape(Span<const Index>(shape9)));
  std::uint64_t count = 0;
  {
    AllocationScope scope;
    auto v = t.view_mut();
    v.at(1, 0, 1, 0, 1, 0, 1, 0, 1) = 7;
    count = scope.count();
  }
  CHECK(count > 0);  // shape and strides of rank 9 live on the heap
  auto p = t.view().permute({8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(p.at(1, 0, 1, 0, 1, 0, 1, 0, 1) == 7);
  CHECK_FALSE(p.layout().shape.is_inline());
  auto compact = p.to_col_major();
  CHECK(compact.at(1, 0, 1, 0, 1, 0, 1, 0, 1) == 7);

  // A rank-8 complex tensor becomes a rank-9 real view: that one spills.
  std::vector<Index> shape8(8, 1);
  auto z = Tensor<std::complex<float>, DynRank, Host>::zeros(Shape(Span<const Index>(shape8)));
  z.at(0, 0, 0, 0, 0, 0, 0, 0) = {1.5f, -2.5f};
  auto re = z.view().real_view();
  CHECK(re.rank() == 9);
  CHECK(re.at(1, 0, 0, 0, 0, 0, 0, 0, 0) == -2.5f);
  TensorRead erased(re);
  CHECK(erased.rank() == 9);
}
