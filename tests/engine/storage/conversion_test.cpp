// Conversions: re-tagging, checked narrowing that returns the unchanged owner, rank
// conversion, reshape, and the same for views.
#include <catch2/catch.hpp>

#include <vector>

#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

TEST_CASE("Host -> Dynamic -> Host keeps the allocation", "[storage][conversion]") {
  auto h = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {1, 2, 3, 4});
  const double* data = h.data();
  Tensor<double> d = std::move(h).into_dynamic();
  CHECK(d.space() == MemorySpaceKind::Host);
  CHECK(d.view().base() == data);
  auto back = std::move(d).into_host();
  REQUIRE(back.has_value());
  CHECK(back.value().data() == data);
  CHECK(back.value().at(1, 1) == 4);
}

TEST_CASE("failed narrowing returns the unchanged owner with a typed cause", "[storage][conversion]") {
  auto d = Tensor<float>::from_col_major({3}, {1, 2, 3});
  const float* data = d.view().base();
  auto wrong = std::move(d).into_device();
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().cause == ConversionCause::NotDeviceResident);
  CHECK(wrong.error().message().find("into_device") != std::string::npos);
  Tensor<float> source = std::move(wrong.error().source);
  CHECK(source.view().base() == data);
  CHECK(source.numel() == 3);
  auto host = std::move(source).into_host().value();
  CHECK(host.at(2) == 3.0f);

  // A device-resident Dynamic tensor refuses into_host and keeps its device allocation.
  auto dev = upload(host).into_dynamic();
  const float* dev_data = dev.view().base();
  auto not_host = std::move(dev).into_host();
  REQUIRE_FALSE(not_host.has_value());
  CHECK(not_host.error().cause == ConversionCause::NotHostResident);
  auto device = std::move(not_host.error().source).into_device();
  REQUIRE(device.has_value());
  CHECK(device.value().view().base() == dev_data);
  CHECK(download(device.value()).at(1) == 2.0f);
}

TEST_CASE("rank conversion keeps representation and allocation", "[storage][conversion]") {
  auto t = Tensor<int, DynRank, Host>::from_col_major({2, 3}, {1, 2, 3, 4, 5, 6});
  const int* data = t.data();
  auto wrong = std::move(t).into_rank<3>();
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().cause == ConversionCause::RankMismatch);
  auto fixed = std::move(wrong.error().source).into_rank<2>();
  REQUIRE(fixed.has_value());
  Tensor<int, Rank<2>, Host> f = std::move(fixed.value());
  CHECK(f.data() == data);
  CHECK(f.at(1, 2) == 6);
  Tensor<int, DynRank, Host> back = std::move(f).into_dyn();
  CHECK(back.rank() == 2);
  CHECK(back.data() == data);
}

TEST_CASE("owner reshape succeeds or returns the owner", "[storage][conversion]") {
  auto t = Tensor<double, Rank<2>, Host>::from_col_major({2, 3}, {1, 2, 3, 4, 5, 6});
  auto bad = std::move(t).reshape({4, 2});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().cause == ConversionCause::ElementCountMismatch);
  auto negative = std::move(bad.error().source).reshape({-6});
  REQUIRE_FALSE(negative.has_value());
  auto good = std::move(negative.error().source).reshape({3, 1, 2});
  REQUIRE(good.has_value());
  CHECK(good.value().rank() == 3);
  CHECK(good.value().at(2, 0, 1) == 6);
}

TEST_CASE("view conversions: widening, narrowing, rank", "[storage][conversion]") {
  auto h = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {1, 2, 3, 4});
  TensorView<double> dv = h.view().into_dynamic();
  CHECK(dv.space() == MemorySpaceKind::Host);
  auto not_device = dv.into_device();
  REQUIRE_FALSE(not_device.has_value());
  CHECK(not_device.error().cause == ConversionCause::NotDeviceResident);
  CHECK(not_device.error().source.base() == h.data());
  CHECK(dv.into_host().value().at(0, 1) == 3);
  CHECK_FALSE(dv.into_rank<1>().has_value());
  auto r2 = dv.into_rank<2>().value();
  CHECK(r2.into_dyn().rank() == 2);

  auto dyn = Tensor<double>::from_col_major({2}, {5, 6});
  auto mv = dyn.view_mut();
  auto narrowed = std::move(mv).into_host();
  REQUIRE(narrowed.has_value());
  narrowed.value().at(0) = 50;
  CHECK(std::move(dyn).into_host().value().at(0) == 50);

  auto dev = upload(h);
  auto dev_view = dev.view_mut().into_dynamic();
  auto failed = std::move(dev_view).into_host();
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().cause == ConversionCause::NotHostResident);
  auto recovered = std::move(failed.error().source).into_device();
  CHECK(recovered.has_value());
}
