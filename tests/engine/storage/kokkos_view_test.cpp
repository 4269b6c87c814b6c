// Kokkos::View bridges: kernels on the test's space (and on the device space) read and write tensor
// elements through unmanaged Views of the right memory space, with the right strides.
#include <catch2/catch.hpp>

#include <complex>

#include "test_context.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

TEST_CASE("strided Host views as Kokkos Views on the test's space", "[storage][kokkos_view]") {
  auto t = Tensor<double, DynRank, Host>::from_row_major({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto v = t.view().permute({1, 0}).slice(0, {0, 4, 2});  // [2, 3]: columns 0 and 2 of t, transposed
  auto kv = kokkos_view<2>(v);
  static_assert(std::is_same<decltype(kv)::memory_space, Kokkos::HostSpace>::value, "");
  REQUIRE(kv.extent(0) == 2);
  REQUIRE(kv.extent(1) == 3);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 3; ++j) CHECK(kv(i, j) == v.at(i, j));
  const double sum = tfbench::testing::with_space([&](auto exec) {
    using Exec = decltype(exec);
    double s = 0;
    Kokkos::parallel_reduce(
        "tfbench::engine::storage::test_sum",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {2, 3}),
        KOKKOS_LAMBDA(const int i, const int j, double& acc) { acc += kv(i, j); }, s);
    return s;
  });
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
    Kokkos::parallel_for(
        "tfbench::engine::storage::test_fill",
        Kokkos::MDRangePolicy<DeviceExecSpace, Kokkos::Rank<2>>({0, 0}, {3, 2}),
        KOKKOS_LAMBDA(const int i, const int j) { kv(i, j) = Kokkos::complex<double>(i, j); });
    DeviceExecSpace().fence();
  }
  auto h = download(d);
  CHECK(h.at(2, 1) == std::complex<double>(2, 1));
  auto kl = kokkos_view_left<2>(d.view());
  CHECK(kl.extent(0) == 3);
}
