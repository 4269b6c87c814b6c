// Explicit transfers and mappings on the test's execution space: upload/download round trips
// (compact and strided), transfer counters, zero-copy and staged mappings with write-back.
#include <catch2/catch.hpp>

#include <complex>
#include <vector>

#include "storage_test_support.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;
using tfbench::testing::with_space;

TEST_CASE("upload/download round trip on the test's space", "[storage][transfer]") {
  std::vector<double> values(6 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * static_cast<double>(i);
  auto host = Tensor<double, DynRank, Host>::from_col_major({6, 5}, values);
  const auto before = transfer_stats();
  auto dev = with_space([&](auto exec) { return upload(exec, host); });
  CHECK(dev.space() == MemorySpaceKind::Device);
  CHECK(dev.view().base() != host.data());  // a real copy into a Kokkos allocation
  auto back = with_space([&](auto exec) { return download(exec, dev); });
  CHECK(std::vector<double>(back.as_slice().begin(), back.as_slice().end()) == values);
  const auto delta = transfer_stats() - before;
  CHECK(delta.uploads == 1);
  CHECK(delta.downloads == 1);
  CHECK(delta.bytes_uploaded == 30 * sizeof(double));
  CHECK(delta.bytes_downloaded == 30 * sizeof(double));
}

TEST_CASE("strided sources are compacted on their own side", "[storage][transfer]") {
  auto host = Tensor<int, DynRank, Host>::from_row_major({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // Upload a permuted, reversed host view.
  auto dev = with_space([&](auto exec) {
    return upload(exec, host.view().permute({1, 0}).slice(1, {2, -1, -1}));
  });
  auto back = download(dev);
  REQUIRE(back.rank() == 2);
  CHECK(back.extent(0) == 4);
  CHECK(back.at(0, 0) == 9);
  CHECK(back.at(3, 2) == 4);

  // Download a strided device view: gathered by a kernel on the device first.
  auto full = upload(host);
  auto gathered = with_space([&](auto exec) {
    return download(exec, full.view().slice(1, {3, -1, -2}).permute({1, 0}));
  });
  REQUIRE(gathered.extent(0) == 2);
  CHECK(gathered.at(0, 0) == 4);
  CHECK(gathered.at(1, 2) == 10);

  // Device compaction and clone.
  auto compact = tfbench::testing::with_device_capable_space([&](auto exec) {
    return full.view().permute({1, 0}).to_col_major(exec);
  });
  CHECK(download(compact).at(3, 1) == 8);
  CHECK(download(full.clone()).at(2, 3) == 12);
}

TEST_CASE("complex and static-rank transfers", "[storage][transfer]") {
  using C = std::complex<float>;
  auto z = Tensor<C, Rank<2>, Host>::from_row_major({2, 2}, {C(1, 2), C(3, 4), C(5, 6), C(7, 8)});
  auto dz = upload(z);
  auto back = download(dz.view().real_view());  // a strided real view of device data
  CHECK(back.rank() == 3);
  CHECK(back.at(1, 0, 1) == 4.0f);
  CHECK(download(dz).at(1, 1) == C(7, 8));
}

TEST_CASE("map_read and map_write", "[storage][mapping]") {
  auto host = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {1, 2, 3, 4});
  auto dev = upload(host);
  const auto before = transfer_stats();
  {
    auto guard = map_read(dev);
    CHECK(guard.is_zero_copy() == kDeviceMemoryIsHostAccessible);
    if (guard.is_zero_copy()) CHECK(guard.view().data() == dev.view().base());
    CHECK(guard.view().at(1, 1) == 4);
  }
  {
    auto staged = map_read(dev, MapPolicy::Staged);
    CHECK_FALSE(staged.is_zero_copy());
    CHECK(staged.view().data() != dev.view().base());
    CHECK(staged.view().at(0, 1) == 3);
  }
  {
    auto w = map_write(dev, MapPolicy::Staged);
    auto v = w.view_mut();
    v.at(0, 0) = 10;                     // the other elements keep their values
    CHECK(download(dev).at(0, 0) == 1);  // not published yet
    w.finish();
    CHECK_FALSE(w.is_open());
    CHECK_THROWS_AS(w.view(), StorageError);
    w.finish();  // idempotent
  }
  auto after = download(dev);
  CHECK(after.at(0, 0) == 10);
  CHECK(after.at(1, 1) == 4);
  {
    auto w = map_write(dev, MapPolicy::Staged);
    w.view_mut().at(1, 0) = 20;
  }  // published on destruction
  CHECK(download(dev).at(1, 0) == 20);
  {
    auto w = map_write(dev);
    w.view_mut().at(0, 1) = 30;
  }
  CHECK(download(dev).at(0, 1) == 30);
  const auto delta = transfer_stats() - before;
  // Where device memory is not host-accessible (CUDA builds) the two Auto maps are staged too.
  const int auto_staged = kDeviceMemoryIsHostAccessible ? 0 : 1;
  CHECK(delta.staged_maps == 3 + 2 * auto_staged);
  CHECK(delta.staged_write_backs == 2 + auto_staged);
  CHECK(delta.zero_copy_maps + delta.staged_maps == 5);

  // Dynamic owners map wherever they live; host-resident ones borrow.
  auto dyn = Tensor<double>::from_col_major({2}, {7, 8});
  auto g = map_read(dyn);
  CHECK(g.is_zero_copy());
  CHECK(g.view().at(1) == 8);
  auto dyn_dev = upload(host).into_dynamic();
  {
    auto w = map_write(dyn_dev, MapPolicy::Staged);
    w.view_mut().at(1, 1) = 44;
  }
  auto g2 = map_read(dyn_dev);
  CHECK(g2.view().at(1, 1) == 44);
}
