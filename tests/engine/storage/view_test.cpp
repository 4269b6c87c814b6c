// Views: transforms, bounds, injectivity, negative strides, empty and singleton dimensions,
// complex -> real reinterpretation, and every rejected layout with its typed error.
#include <catch2/catch.hpp>

#include <complex>
#include <limits>
#include <vector>

#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

namespace {
template <class F>
StorageErrc error_of(F&& f) {
  try {
    f();
  } catch (const StorageError& e) {
    return e.code();
  }
  FAIL("expected a StorageError");
  return StorageErrc::WrongSpace;
}

// [2,3] with rows [1,2,3], [4,5,6].
Tensor<double, DynRank, Host> matrix23() {
  return Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
}
}  // namespace

TEST_CASE("owner views are compact column-major", "[storage][view]") {
  auto t = matrix23();
  auto v = t.view();
  CHECK(v.rank() == 2);
  CHECK(v.strides()[0] == 1);
  CHECK(v.strides()[1] == 2);
  CHECK(v.offset() == 0);
  CHECK(v.window() == 6);
  CHECK(v.is_compact());
  CHECK(v.at(1, 0) == 4);
  CHECK(v(0, 2) == 3);
  CHECK(v.data() == t.data());
  CHECK(v.as_slice().size() == 6);
}

TEST_CASE("permute, slice with steps, reverse", "[storage][view]") {
  auto t = matrix23();
  auto p = t.view().permute({1, 0});
  CHECK(p.shape()[0] == 3);
  CHECK(p.at(2, 1) == 6);
  CHECK(p.at(0, 1) == 4);
  CHECK_FALSE(p.is_compact());
  CHECK(error_of([&] { p.as_slice(); }) == StorageErrc::NotCompact);

  auto cols = t.view().slice(1, {0, 3, 2});  // columns 0 and 2
  CHECK(cols.extent(1) == 2);
  CHECK(cols.at(1, 1) == 6);
  CHECK(cols.at(0, 1) == 3);

  auto reversed = t.view().slice(1, {2, -1, -1});  // columns 2, 1, 0
  CHECK(reversed.stride(1) == -2);
  CHECK(reversed.at(0, 0) == 3);
  CHECK(reversed.at(1, 2) == 4);
  auto compact = reversed.to_col_major();
  CHECK(compact.at(0, 0) == 3);
  CHECK(compact.at(1, 2) == 4);

  auto every_other_reversed = t.view().slice(1, {2, -1, -2});  // columns 2, 0
  CHECK(every_other_reversed.extent(1) == 2);
  CHECK(every_other_reversed.at(1, 1) == 4);

  // Static rank survives permute and slice.
  auto fixed = Tensor<double, Rank<2>, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorView<double, Rank<2>, Host> fp = fixed.view().permute({1, 0}).slice(0, {1, 3});
  CHECK(fp.at(1, 1) == 6);
}

TEST_CASE("reshape of compact data", "[storage][view]") {
  auto t = matrix23();
  auto r = t.view().reshape({3, 2});
  CHECK(r.at(2, 1) == 6);  // column-major element 5
  CHECK(r.at(1, 0) == 4);  // column-major element 1
  auto flat = t.view().reshape({6});
  CHECK(flat.at(3) == 5);
  CHECK(error_of([&] { t.view().reshape({4, 2}); }) == StorageErrc::ElementCountMismatch);
  CHECK(error_of([&] { t.view().permute({1, 0}).reshape({6}); }) == StorageErrc::NotCompact);
  // A contiguous column slice is still compact.
  auto col = t.view().slice(1, {1, 2});
  CHECK(col.is_compact());
  CHECK(col.reshape({2}).at(1) == 5);
}

TEST_CASE("real view of a complex tensor: rank + 1, leading extent 2, strides doubled", "[storage][view]") {
  using C = std::complex<double>;
  auto z = Tensor<C, DynRank, Host>::from_row_major({2, 2}, {C(1, -1), C(2, -2), C(3, -3), C(4, -4)});
  auto re = z.view().real_view();
  REQUIRE(re.rank() == 3);
  CHECK(re.shape()[0] == 2);
  CHECK(re.stride(0) == 1);
  CHECK(re.stride(1) == 2);
  CHECK(re.stride(2) == 4);
  CHECK(re.at(0, 1, 0) == 3);   // real part of z[1,0]
  CHECK(re.at(1, 0, 1) == -2);  // imaginary part of z[0,1]

  // Through a permuted view and a mutable view.
  auto rp = z.view().permute({1, 0}).real_view();
  CHECK(rp.at(0, 1, 0) == 2);
  auto rw = z.view_mut().real_view();
  auto imag = std::move(rw).slice(0, {1, 2});
  imag.at(0, 1, 1) = 40;
  CHECK(z.at(1, 1) == C(4, 40));

  // Static rank input gives a dynamic rank result.
  auto fz = Tensor<std::complex<float>, Rank<1>, Host>::from_col_major({2}, {{1, 2}, {3, 4}});
  TensorView<float, DynRank, Host> fr = fz.view().real_view();
  CHECK(fr.at(1, 1) == 4.0f);
}

TEST_CASE("strided views: bounds checked with signed offsets", "[storage][view][errors]") {
  auto t = Tensor<int, DynRank, Host>::from_col_major({12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto v = t.strided_view({3, 4}, {4, 1});  // row-major reading of 12 elements
  CHECK(v.at(1, 2) == 6);
  auto neg = t.strided_view({4}, {-3}, 11);  // 11, 8, 5, 2
  CHECK(neg.at(3) == 2);

  CHECK(error_of([&] { t.strided_view({3, 4}, {4, 2}); }) == StorageErrc::OutOfBounds);
  CHECK(error_of([&] { t.strided_view({4}, {-3}, 8); }) == StorageErrc::OutOfBounds);
  CHECK(error_of([&] { t.strided_view({2}, {1}, -1); }) == StorageErrc::OutOfBounds);
  CHECK(error_of([&] { t.strided_view({3}, {std::numeric_limits<Index>::max()}); }) ==
        StorageErrc::OffsetOverflow);
  CHECK(error_of([&] { t.strided_view({2, 2}, {1}); }) == StorageErrc::RankMismatch);
  CHECK(error_of([&] { t.strided_view({-1}, {1}); }) == StorageErrc::NegativeExtent);
  CHECK(error_of([&] {
          TensorView<int, DynRank, Host>::from_host_span(t.as_slice(), {Index{1} << 62, 8}, {1, 1});
        }) == StorageErrc::SizeOverflow);

  // A static-rank view refuses a layout of another rank.
  auto fixed = Tensor<int, Rank<1>, Host>::zeros({4});
  CHECK(error_of([&] { fixed.strided_view({2, 2}, {1, 2}); }) == StorageErrc::RankMismatch);
}

TEST_CASE("mutable views must be injective", "[storage][view][errors]") {
  auto t = Tensor<int, DynRank, Host>::zeros({6});
  // Broadcast (stride 0) is a fine read layout and an invalid write layout.
  auto broadcast = t.strided_view({3, 2}, {1, 0});
  CHECK(broadcast.at(2, 1) == 0);
  CHECK(error_of([&] { t.strided_view_mut({3, 2}, {1, 0}); }) == StorageErrc::Overlapping);
  CHECK(error_of([&] { t.strided_view_mut({2, 2}, {1, 1}); }) == StorageErrc::Overlapping);
  auto eight = Tensor<int, DynRank, Host>::zeros({8});
  // Injective (0 2 4 3 5 7) but interleaved: the sufficient check rejects it, as documented.
  CHECK(error_of([&] { eight.strided_view_mut({3, 2}, {2, 3}); }) == StorageErrc::Overlapping);
  CHECK(error_of([&] {
          std::vector<int> buf(4);
          TensorViewMut<int, DynRank, Host>::from_host_span(Span<int>(buf), {2, 2}, {2, 1});
          TensorViewMut<int, DynRank, Host>::from_host_span(Span<int>(buf), {3}, {1}, 0);  // fine
          TensorViewMut<int, DynRank, Host>::from_host_span(Span<int>(buf), {2, 3}, {1, 1});
        }) == StorageErrc::Overlapping);

  // Negative strides, singletons with any stride and disjoint interleavings are accepted.
  auto reverse = t.strided_view_mut({6}, {-1}, 5);
  reverse.at(0) = 60;
  CHECK(t.at(5) == 60);
  auto single = t.strided_view_mut({1, 3}, {1000000, 2});
  single.at(0, 2) = 4;
  CHECK(t.at(4) == 4);
  auto interleaved = t.strided_view_mut({2, 3}, {1, 2});
  interleaved.at(1, 2) = 55;
  CHECK(t.at(5) == 55);
}

TEST_CASE("empty and singleton dimensions", "[storage][view]") {
  auto t = Tensor<double, DynRank, Host>::zeros({3, 0, 2});
  auto v = t.view();
  CHECK(v.numel() == 0);
  CHECK(v.empty());
  CHECK(v.is_compact());
  CHECK(v.permute({2, 1, 0}).numel() == 0);
  CHECK(v.to_col_major().numel() == 0);
  CHECK(error_of([&] { v.at(0, 0, 0); }) == StorageErrc::IndexOutOfBounds);

  auto m = matrix23();
  auto none = m.view().slice(1, {3, 3});  // empty range at the end
  CHECK(none.numel() == 0);
  CHECK(none.to_col_major().numel() == 0);
  auto none_rev = m.view().slice(0, {-1, -1, -1});
  CHECK(none_rev.numel() == 0);

  auto s = Tensor<double, DynRank, Host>::from_col_major({1, 3, 1}, {1, 2, 3});
  auto sv = s.strided_view({1, 3, 1}, {99, 1, -7});  // singleton strides never apply
  CHECK(sv.is_compact());
  CHECK(sv.reshape({3}).at(2) == 3);
}

TEST_CASE("transform arguments are validated", "[storage][view][errors]") {
  auto t = matrix23();
  auto v = t.view();
  CHECK(error_of([&] { v.permute({0, 0}); }) == StorageErrc::InvalidPermutation);
  CHECK(error_of([&] { v.permute({0, 2}); }) == StorageErrc::InvalidPermutation);
  CHECK(error_of([&] { v.permute({0}); }) == StorageErrc::RankMismatch);
  CHECK(error_of([&] { v.slice(2, {0, 1}); }) == StorageErrc::InvalidDimension);
  CHECK(error_of([&] { v.slice(0, {0, 2, 0}); }) == StorageErrc::ZeroStep);
  CHECK(error_of([&] { v.slice(0, {0, 3}); }) == StorageErrc::InvalidRange);
  CHECK(error_of([&] { v.slice(0, {2, 1}); }) == StorageErrc::InvalidRange);
  CHECK(error_of([&] { v.slice(0, {2, -1, -1}); }) == StorageErrc::InvalidRange);
  CHECK(error_of([&] { v.slice(0, {-1, 1}); }) == StorageErrc::InvalidRange);
  CHECK(error_of([&] { v.extent(5); }) == StorageErrc::InvalidDimension);
  CHECK(error_of([&] { v.at(1, 3); }) == StorageErrc::IndexOutOfBounds);
  CHECK(error_of([&] { v.at(1); }) == StorageErrc::RankMismatch);
}

TEST_CASE("views over caller-owned host memory", "[storage][view]") {
  std::vector<double> buf{1, 2, 3, 4, 5, 6};
  auto v = TensorView<double, Rank<2>, Host>::from_host_span(Span<const double>(buf), {3, 2}, {2, 1});
  CHECK(v.at(2, 1) == 6);
  auto w = TensorViewMut<double, DynRank, Host>::from_host_span(Span<double>(buf), {2}, {3}, 2);
  w.at(1) = 60;
  CHECK(buf[5] == 60);
}

TEST_CASE("mutable views are consumed by their transforms and write through", "[storage][view]") {
  auto t = Tensor<double, DynRank, Host>::zeros({2, 3});
  auto v = t.view_mut().permute({1, 0}).slice(0, {0, 3, 2});
  v.at(1, 1) = 9;  // t[1, 2]
  CHECK(t.at(1, 2) == 9);
  auto col = t.view_mut().slice(1, {2, 3}).reshape({2});
  col.at(0) = 8;
  CHECK(t.at(0, 2) == 8);
  CHECK_THROWS_AS(std::move(col).reshape({4}), StorageError);
  CHECK_THROWS_AS(t.view_mut().slice(0, {1, 2}).reshape({3}), StorageError);  // a row is not compact
  auto c = t.view_mut();
  auto r = c.as_const();
  CHECK(r.at(1, 2) == 9);
}
