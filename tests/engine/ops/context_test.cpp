// Where kernels run and where outputs come from: a one-thread budget and small operations never open
// an OpenMP region (observed with a Kokkos Tools callback), allocating results are published output
// leases of the session's pool.

#include "ops_test_support.hpp"

#include <mutex>
#include <vector>

namespace {

using namespace tfbench;
using namespace tfbench::testing;

std::mutex g_mutex;
std::vector<std::uint32_t> g_devices;

void record_launch(const char*, std::uint32_t device, std::uint64_t*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices.push_back(device);
}

/// Device ids of the parallel_for launches made while f runs.
template <class F>
std::vector<std::uint32_t> launches(F&& f) {
  g_devices.clear();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_launch);
  f();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  return g_devices;
}

}  // namespace

TEST_CASE("small operations and one-thread budgets run on Kokkos::Serial", "[ops][context]") {
#if defined(KOKKOS_ENABLE_SERIAL)
  std::mt19937_64 rng(53);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {20, 30});
  auto b = random_operand<double>(rng, {20, 30});
  const std::uint32_t serial_id = Kokkos::Tools::Experimental::device_id(Kokkos::Serial());
  in_session(backend, [&](Session& s) {
    const auto ids = launches([&] {
      ops::add(s, a.view(), b.view());
      ops::sum(s, a.view(), {1});
      ops::permute(s, a.view(), {1, 0});
      ops::einsum(s, "ij,ij->ij", a.view(), b.view());
    });
    REQUIRE(!ids.empty());
    for (auto id : ids) CHECK(id == serial_id);
  });
#endif
}

TEST_CASE("large operations use the session's space", "[ops][context]") {
  std::mt19937_64 rng(59);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {300, 200});
  auto b = random_operand<double>(rng, {300, 200});
  in_session(backend, [&](Session& s) {
    const auto ids = launches([&] { ops::add(s, a.view(), b.view()); });
    REQUIRE(ids.size() == 1);
    const std::uint32_t expected =
        s.dispatch([](auto space) { return Kokkos::Tools::Experimental::device_id(space); });
    CHECK(ids[0] == expected);
  });
}

TEST_CASE("allocating results are published output leases", "[ops][context]") {
  std::mt19937_64 rng(61);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {50, 40});
  auto b = random_operand<double>(rng, {40, 30});
  const auto before = backend.lease_stats();
  in_session(backend, [&](Session& s) {
    auto c = ops::einsum(s, "ik,kj->ij", a.view(), b.view());
    CHECK(c.allocation_kind() == AllocationKind::Pooled);
    auto d = ops::add(s, c, c);
    CHECK(d.allocation_kind() == AllocationKind::Pooled);
    // A failed validation discards nothing it opened: it opens nothing.
    CHECK_THROWS_AS(ops::add(s, a.view(), b.view()), ops::OpError);
  });
  const auto after = backend.lease_stats();
  CHECK(after.outputs_opened - before.outputs_opened == 2);
  CHECK(after.outputs_published - before.outputs_published == 2);
  CHECK(after.outputs_discarded == before.outputs_discarded);
}
