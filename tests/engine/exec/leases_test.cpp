// Output and scratch leases: coexisting output and scratch
// leases, publication as pooled tensors, discard on error and on exception without leaking accounting
// or exposing elements, single use, and no stale read from a reused block.

#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/leases.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

namespace {
void fill(double* data, Index n, double value) {
  for (Index i = 0; i < n; ++i) data[i] = value + double(i);
}
}  // namespace

TEST_CASE("An output lease coexists with scratch leases and publishes a pooled tensor", "[exec][lease]") {
  auto backend = tfbench::testing::test_backend();
  const auto& pool = backend.host_pool();
  auto published = backend.with_session([&](Session& s) {
    auto out = s.output_lease<double>({3, 4});
    auto small = s.scratch(100);
    auto big = s.scratch(5000);
    REQUIRE(pool->stats().checkouts_outstanding == 3);
    REQUIRE(out.numel() == 12);
    REQUIRE(out.memory() == MemoryKind::Host);
    REQUIRE(small.data() != big.data());
    REQUIRE(big.bytes() == 5000);
    // A kernel-like fill through scratch: write into scratch, then into the output.
    double* tmp = big.as<double>(12);
    fill(tmp, 12, 1.0);
    for (Index i = 0; i < 12; ++i) out.data()[i] = 2 * tmp[i];
    REQUIRE_THROWS_AS(small.as<double>(13), LeaseError);
    return std::move(out).publish_host();
  });
  REQUIRE(published.has_value());
  Tensor<double, DynRank, Host>& t = *published;
  REQUIRE(t.allocation_kind() == AllocationKind::Pooled);
  REQUIRE(t.numel() == 12);
  REQUIRE(t.shape()[0] == 3);
  REQUIRE(t.at({2, 3}) == 2 * (1.0 + 11));
  REQUIRE(pool->stats().checkouts_outstanding == 1);  // the scratch blocks went back, the tensor holds one
  const auto stats = backend.lease_stats();
  REQUIRE(stats.outputs_opened == 1);
  REQUIRE(stats.outputs_published == 1);
  REQUIRE(stats.scratch_opened == 2);
}

TEST_CASE(
    "An unpublished output goes back on error and on exception: no leak, nothing exposed, no stale read",
    "[exec][lease]") {
  auto backend = tfbench::testing::test_backend();
  const auto& pool = backend.host_pool();
  // The operation fails half-way through writing its output, by returning an error...
  auto failed = backend.with_session([&](Session& s) -> Result<Tensor<double, DynRank, Host>, std::string> {
    auto out = s.output_lease<double>({64});
    fill(out.data(), 32, 7.0);
    return unexpected(std::string("provider failed after 32 elements"));
  });
  REQUIRE(failed.has_value());
  REQUIRE_FALSE(failed->has_value());
  // ... and by throwing.
  REQUIRE_THROWS_AS(backend.with_session([&](Session& s) {
    auto out = s.output_lease<double>({64});
    auto scratch = s.scratch(1024);
    fill(out.data(), 16, 9.0);
    throw std::runtime_error("kernel failed");
  }),
                    std::runtime_error);
  auto stats = pool->stats();
  REQUIRE(stats.checkouts_outstanding == 0);
  REQUIRE(stats.bytes_live == 0);
  REQUIRE(backend.lease_stats().outputs_discarded == 2);
  REQUIRE(backend.lease_stats().outputs_published == 0);
  // The next output reuses the cached block; only a complete write is published, so nothing stale shows.
  auto next = backend.with_session([&](Session& s) {
    auto out = s.output_lease<double>({64});
    fill(out.data(), 64, 100.0);
    return std::move(out).publish_host();
  });
  REQUIRE(pool->stats().hits >= 1);
  for (Index i = 0; i < 64; ++i) REQUIRE(next->at({i}) == 100.0 + double(i));
}

TEST_CASE("Publishing is single-use and checks the memory", "[exec][lease]") {
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto out = s.output_lease<float>({5});
                REQUIRE_THROWS_AS(std::move(out).publish_device(), LeaseError);  // host lease: rejected, kept
                REQUIRE(out.open());
                for (int i = 0; i < 5; ++i) out.data()[i] = float(i);
                auto t = std::move(out).publish();  // Dynamic
                REQUIRE(t.space() == MemorySpaceKind::Host);
                REQUIRE_FALSE(out.open());
                REQUIRE_THROWS_AS(std::move(out).publish_host(), LeaseError);
                REQUIRE_THROWS_AS(s.output_lease<double>({-1}), StorageError);
                auto empty = s.output_lease<double>({0, 3});
                REQUIRE(std::move(empty).publish_host().numel() == 0);
              })
              .has_value());
}

TEST_CASE("A lease may outlive its session and backend", "[exec][lease]") {
  std::optional<OutputLease<double>> kept;
  {
    auto backend = tfbench::testing::test_backend();
    REQUIRE(backend.with_session([&](Session& s) { kept.emplace(s.output_lease<double>({4})); }).has_value());
  }
  fill(kept->data(), 4, 1.0);
  auto t = std::move(*kept).publish_host();  // the pool is gone: the block is freed when t dies
  REQUIRE(t.at({3}) == 4.0);
}

TEST_CASE("A device session's output lease lives in device memory and publishes a Device tensor",
          "[exec][lease]") {
  auto device = DeviceBackend::make();
  auto result = device.with_session([&](Session& s) {
    auto out = s.output_lease<double>({16});
    REQUIRE(out.memory() == MemoryKind::Device);
    Kokkos::View<double*, DeviceMemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(out.data(), 16);
    Kokkos::parallel_for(
        "tfbench::tests::exec::device_output", Kokkos::RangePolicy<DeviceExecSpace>(0, 16),
        KOKKOS_LAMBDA(int i) { view(i) = 3.0 * i; });
    Kokkos::fence();
    return std::move(out).publish_device();
  });
  REQUIRE(result.has_value());
  auto host = download(*result);
  for (Index i = 0; i < 16; ++i) REQUIRE(host.at({i}) == 3.0 * double(i));
  REQUIRE(device.device_pool()->stats().checkouts_outstanding == 1);
}
