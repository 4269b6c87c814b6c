// Kokkos::View bridges: kernels on the test's space (and on the device space) read and write tensor
// elements through unmanaged Views of the right memory space, with the right strides.
#include <catch2/catch.hpp>

#include <complex>

#include "storage_test_support.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

// Kernels live in named functions: CUDA extended lambdas cannot sit in generic lambdas or test bodies.
namespace storage_test {
template <class Exec, class View>
double sum2d(const Exec& exec, const View& v) {
  double s = 0;
  Kokkos::parallel_reduce(
      "tfbench::engine::storage::test_sum",
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(
          exec, {0, 0}, {static_cast<std::int64_t>(v.extent(0)), static_cast<std::int64_t>(v.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j, double& acc) { acc += v(i, j); }, s);
  return s;
}
template <class View>
void fill_index_pairs(const View& v) {
  Kokkos::parallel_for(
      "tfbench::engine::storage::test_fill",
      Kokkos::MDRangePolicy<DeviceExecSpace, Kokkos::Rank<2>>(
          {0, 0}, {static_cast<std::int64_t>(v.extent(0)), static_cast<std::int64_t>(v.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        v(i, j) = Kokkos::complex<double>(static_cast<double>(i), static_cast<double>(j));
      });
  DeviceExecSpace().fence();
}
}  // namespace storage_test

TEST_CASE("strided Host views as Kokkos Views on the test's space", "[storage][kokkos_view]") {
  auto t = Tensor<double, DynRank, Host>::from_row_major({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto v = t.view().permute({1, 0}).slice(0, {0, 4, 2});  // [2, 3]: columns 0 and 2 of t, transposed
  auto kv = kokkos_view<2>(v);
  static_assert(std::is_same<decltype(kv)::memory_space, Kokkos::HostSpace>::value, "");
  REQUIRE(kv.extent(0) == 2);
  REQUIRE(kv.extent(1) == 3);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 3; ++j) CHECK(kv(i, j) == v.at(i, j));
  const double sum =
      tfbench::testing::with_host_capable_space([&](auto exec) { return storage_test::sum2d(exec, kv); });
  CHECK(sum == 1 + 5 + 9 + 3 + 7 + 11);

  auto left = kokkos_view_left<2>(t.view());
  CHECK(left(2, 3) == 12);
  CHECK_THROWS_AS(kokkos_view_left<2>(v), StorageError);
  CHECK_THROWS_AS(kokkos_view<2>(t.view().slice(0, {2, -1, -1})), StorageError);
  CHECK_THROWS_AS(kokkos_view<3>(t.view()), StorageError);
}

TEST_CASE("kernels write Device tensors through mutable bridges", "[storage][kokkos_view]") {
  auto d = Tensor<std::complex<double>, Rank<2>, Device>::zeros({3, 2});
  {
    auto kv = kokkos_view<2>(d.view_mut());
    static_assert(std::is_same<decltype(kv)::value_type, Kokkos::complex<double>>::value, "");
    static_assert(std::is_same<decltype(kv)::memory_space, DeviceMemorySpace>::value, "");
    storage_test::fill_index_pairs(kv);
  }
  auto h = download(d);
  CHECK(h.at(2, 1) == std::complex<double>(2, 1));
  auto kl = kokkos_view_left<2>(d.view());
  CHECK(kl.extent(0) == 3);
}
