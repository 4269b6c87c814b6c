// Owners: construction, host access, clone, zeros, managed allocations, non-arithmetic element
// types (a Host tensor stores any element type).
#include <catch2/catch.hpp>

#include <complex>
#include <string>
#include <vector>

#include "drop_counted.hpp"
#include "storage_test_support.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;
using tfbench::testing::DropCounted;

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
}  // namespace

TEST_CASE("the [2,3] example: column-major and row-major describe the same matrix", "[storage][tensor]") {
  auto col = Tensor<double, DynRank, Host>::from_col_major({2, 3}, {1, 4, 2, 5, 3, 6});
  auto row = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  for (auto* t : {&col, &row}) {
    CHECK(t->at(1, 0) == 4);
    CHECK(t->at(0, 2) == 3);
    CHECK((*t)(1, 0) == 4);
    CHECK((*t)(0, 2) == 3);
    CHECK(t->at({1, 2}) == 6);
  }
  CHECK(std::vector<double>(row.as_slice().begin(), row.as_slice().end()) ==
        std::vector<double>{1, 4, 2, 5, 3, 6});

  auto fixed = Tensor<double, Rank<2>, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(fixed.at(1, 0) == 4);
  CHECK(fixed.at(0, 2) == 3);

  // The default representation (Dynamic) holds the same data; element access needs narrowing.
  auto dynamic = Tensor<double>::from_col_major({2, 3}, {1, 4, 2, 5, 3, 6});
  CHECK(dynamic.space() == MemorySpaceKind::Host);
  auto host = std::move(dynamic).into_host().value();
  CHECK(host.at(1, 0) == 4);
  CHECK(host.at(0, 2) == 3);
}

TEST_CASE("from_col_major adopts the vector without copying", "[storage][tensor]") {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  const float* before = data.data();
  auto t = Tensor<float, DynRank, Host>::from_col_major({3, 2}, std::move(data));
  CHECK(t.data() == before);
  CHECK(t.allocation_kind() == AllocationKind::Plain);
  CHECK(t.numel() == 6);
  CHECK(t.rank() == 2);
  CHECK(t.extent(0) == 3);
}

TEST_CASE("construction rejects bad shapes and lengths with typed errors", "[storage][tensor]") {
  using H = Tensor<double, DynRank, Host>;
  CHECK(error_of([] { H::from_col_major({2, 3}, {1, 2, 3}); }) == StorageErrc::LengthMismatch);
  CHECK(error_of([] { H::from_row_major({2, 2}, {1, 2, 3, 4, 5}); }) == StorageErrc::LengthMismatch);
  CHECK(error_of([] { H::from_col_major({2, -3}, {}); }) == StorageErrc::NegativeExtent);
  CHECK(error_of([] { H::zeros({Index{1} << 40, Index{1} << 40}); }) == StorageErrc::SizeOverflow);
  // Fits Index but not in bytes.
  CHECK(error_of([] { H::zeros({Index{1} << 61}); }) == StorageErrc::SizeOverflow);

  auto t = H::from_col_major({2, 3}, {1, 4, 2, 5, 3, 6});
  CHECK(error_of([&] { t.at(2, 0); }) == StorageErrc::IndexOutOfBounds);
  CHECK(error_of([&] { t.at(0, -1); }) == StorageErrc::IndexOutOfBounds);
  CHECK(error_of([&] { t.at(0); }) == StorageErrc::RankMismatch);
  CHECK(error_of([&] { t.extent(2); }) == StorageErrc::InvalidDimension);
  try {
    t.at(0, 3);
  } catch (const StorageError& e) {
    CHECK(std::string(e.what()).find("dimension 1") != std::string::npos);
  }
}

TEST_CASE("scalars, empty tensors and bool elements", "[storage][tensor]") {
  auto scalar = Tensor<int, DynRank, Host>::from_col_major({}, {42});
  CHECK(scalar.rank() == 0);
  CHECK(scalar.numel() == 1);
  CHECK(scalar.at() == 42);

  auto empty = Tensor<double, DynRank, Host>::from_col_major({3, 0}, {});
  CHECK(empty.numel() == 0);
  CHECK(empty.view().is_compact());
  CHECK(empty.clone().numel() == 0);

  auto flags = Tensor<bool, DynRank, Host>::from_row_major({2, 2}, {true, false, false, true});
  CHECK(flags.at(0, 0));
  CHECK_FALSE(flags.at(0, 1));
  auto copied = Tensor<bool, Rank<1>, Host>::from_col_major({3}, {false, true, true});
  CHECK(copied.at(1));
  CHECK_FALSE(Tensor<bool, DynRank, Host>::zeros({4}).at(3));
}

TEST_CASE("zeros in every representation", "[storage][tensor]") {
  auto h = Tensor<std::complex<double>, DynRank, Host>::zeros({2, 2});
  CHECK(h.at(1, 1) == std::complex<double>(0, 0));
  auto dyn = Tensor<float>::zeros({5});
  CHECK(dyn.space() == MemorySpaceKind::Host);

  auto d = tfbench::testing::with_device_capable_space([](auto exec) {
    return Tensor<double, DynRank, Device>::zeros(exec, {3, 4});
  });
  CHECK(d.space() == MemorySpaceKind::Device);
  CHECK(d.allocation_kind() == AllocationKind::Plain);
  auto back = download(d);
  for (double v : back.as_slice()) CHECK(v == 0.0);
  auto d2 = Tensor<int, Rank<2>, Device>::zeros({2, 2});
  CHECK(download(d2).at(1, 1) == 0);
}

TEST_CASE("mutable host access writes through owners and views", "[storage][tensor]") {
  auto t = Tensor<double, DynRank, Host>::zeros({2, 3});
  t.at(1, 2) = 7;
  t(0, 1) = 5;
  auto v = t.view_mut();
  v.at(1, 0) = 3;
  v(0, 0) = 1;
  CHECK(t.as_slice()[0] == 1);
  CHECK(t.at(1, 0) == 3);
  CHECK(t.at(0, 1) == 5);
  CHECK(t.at(1, 2) == 7);
}

TEST_CASE("clone is a deep copy into a plain allocation", "[storage][tensor]") {
  auto a = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {1, 2, 3, 4});
  auto b = a.clone();
  CHECK(b.data() != a.data());
  b.at(0, 0) = 10;
  CHECK(a.at(0, 0) == 1);
  CHECK(b.allocation_kind() == AllocationKind::Plain);

  auto d = upload(a);
  auto dc = d.clone();
  CHECK(download(dc).at(1, 1) == 4);
}

TEST_CASE("a non-arithmetic element type: every element destroyed exactly once", "[storage][tensor][drop]") {
  const auto before = DropCounted::live().size();
  DropCounted::bad_destructions() = 0;
  {
    std::vector<DropCounted> data;
    for (int i = 0; i < 6; ++i) data.emplace_back(i + 1);
    auto t = Tensor<DropCounted, DynRank, Host>::from_col_major({2, 3}, std::move(data));
    CHECK(t.at(1, 0) == 2);
    auto c = t.clone();  // Host clone: copy constructible is enough
    CHECK(c.at(1, 2) == 6);
    auto compact = t.view().permute({1, 0}).to_col_major();  // compaction of a non-compact view
    CHECK(compact.at(2, 1) == 6);
    CHECK(compact.at(0, 1) == 2);
    auto row = Tensor<DropCounted, Rank<2>, Host>::from_row_major(
        {1, 2}, std::vector<DropCounted>{DropCounted(7), DropCounted(8)});
    CHECK(row.at(0, 1) == 8);

    // The default (Dynamic) representation stores it too; failed narrowing keeps every element.
    std::vector<DropCounted> more;
    for (int i = 0; i < 4; ++i) more.emplace_back(10 + i);
    auto dynamic = Tensor<DropCounted>::from_col_major({4}, std::move(more));
    const auto alive = DropCounted::live().size();
    auto failed = std::move(dynamic).into_device();
    REQUIRE_FALSE(failed.has_value());
    CHECK(failed.error().cause == ConversionCause::NotDeviceResident);
    CHECK(DropCounted::live().size() == alive);  // nothing destroyed or copied
    auto host = std::move(failed.error().source).into_host().value();
    CHECK(host.at(3) == 13);

    // A rejected construction destroys the adopted vector's elements once.
    std::vector<DropCounted> wrong;
    wrong.emplace_back(1);
    using HostDrop = Tensor<DropCounted, DynRank, Host>;
    CHECK_THROWS_AS(HostDrop::from_col_major({2}, std::move(wrong)), StorageError);
  }
  CHECK(DropCounted::live().size() == before);
  CHECK(DropCounted::bad_destructions() == 0);
}

TEST_CASE("managed allocations call their deleter exactly once", "[storage][tensor][managed]") {
  int calls = 0;
  Index seen_count = -1;
  {
    auto* raw = new double[6]{1, 4, 2, 5, 3, 6};
    auto t = Tensor<double, DynRank, Host>::from_managed({2, 3}, raw, [&](double* p, Index n) {
      ++calls;
      seen_count = n;
      delete[] p;
    });
    CHECK(t.allocation_kind() == AllocationKind::Managed);
    CHECK(t.at(1, 0) == 4);
    auto moved = std::move(t);                       // moving the owner moves the authority
    auto dynamic = std::move(moved).into_dynamic();  // so does re-tagging
    CHECK(calls == 0);
  }
  CHECK(calls == 1);
  CHECK(seen_count == 6);

  // Device memory with a custom deleter.
  int device_calls = 0;
  {
    void* mem =
        Kokkos::kokkos_malloc<DeviceMemorySpace>("tfbench::engine::storage::test_managed", 4 * sizeof(float));
    auto d =
        Tensor<float, DynRank, Device>::from_managed({4}, static_cast<float*>(mem), [&](float* p, Index) {
          ++device_calls;
          Kokkos::kokkos_free<DeviceMemorySpace>(p);
        });
    {
      auto w = map_write(d);
      auto v = w.view_mut();
      for (Index i = 0; i < 4; ++i) v.at(i) = static_cast<float>(i);
    }
    CHECK(download(d).at(3) == 3.0f);
    CHECK(d.allocation_kind() == AllocationKind::Managed);
  }
  CHECK(device_calls == 1);

  // Rejected arguments leave ownership with the caller: the deleter is not called.
  int rejected_calls = 0;
  auto count_only = [&](double*, Index) { ++rejected_calls; };
  CHECK(error_of([&] { Tensor<double, DynRank, Host>::from_managed({2}, nullptr, count_only); }) ==
        StorageErrc::NullData);
  double local[2] = {0, 0};
  CHECK(error_of([&] { Tensor<double, DynRank, Host>::from_managed({2}, local, nullptr); }) ==
        StorageErrc::MissingDeleter);
  auto* odd = reinterpret_cast<double*>(reinterpret_cast<char*>(local) + 1);
  CHECK(error_of([&] { Tensor<double, DynRank, Host>::from_managed({1}, odd, count_only); }) ==
        StorageErrc::Misaligned);
  CHECK(rejected_calls == 0);
}
