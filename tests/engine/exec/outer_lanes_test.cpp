// Outer fan-out: lanes started explicitly on the session's own threads,
// each a sequential child; independent runtimes rejected before any lane runs, also through a
// delegate; exceptions joined, then rethrown; same-pool and single external calls outside fan-out.

#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"

using namespace tfbench;
namespace p = tfbench::providers;

TEST_CASE("Outer lanes run one sequential child per thread and cover every item once", "[exec][lanes]") {
  auto backend = tfbench::testing::test_backend();
  const std::int64_t items = 1003;
  std::vector<double> input(items), output(items, 0.0);
  std::iota(input.begin(), input.end(), 0.0);
  std::vector<int> lane_seen(static_cast<std::size_t>(backend.context().threads), 0);
  std::atomic<int> bad_context{0};
  auto ran = backend.with_session([&](Session& s) {
    return submit_outer_items(
        s, check_outer_fan_out(s, {&p::kokkos_batched_serial}).value(), items,
        [&](OuterLane& lane, std::int64_t i) {
          const auto& c = lane.session().context();
          if (c.threads != 1 || !c.outer_active || c.lanes != lane.count() || c.lane != lane.index())
            ++bad_context;
          lane_seen[static_cast<std::size_t>(lane.index())] = 1;
          output[static_cast<std::size_t>(i)] = 2 * input[static_cast<std::size_t>(i)];
        });
  });
  REQUIRE(ran.has_value());
  REQUIRE(ran->has_value());
  REQUIRE(bad_context.load() == 0);
  for (std::int64_t i = 0; i < items; ++i) REQUIRE(output[static_cast<std::size_t>(i)] == 2.0 * i);
  for (int seen : lane_seen) REQUIRE(seen == 1);  // as many lanes as the thread budget
}

TEST_CASE("Lanes run Kokkos kernels on their sequential child space", "[exec][lanes]") {
  auto backend = tfbench::testing::test_backend();
  std::vector<double> partial(static_cast<std::size_t>(backend.context().threads), 0.0);
  auto ran = backend.with_session([&](Session& s) {
    return with_outer_lanes(s, {&p::kokkos_batched_serial}, [&](OuterLane& lane) {
      const auto range = lane_item_range(lane.index(), lane.count(), 1000);
      partial[static_cast<std::size_t>(lane.index())] =
          tfbench::testing::with_host_space(lane.session(), [&](auto space) {
            double sum = 0;
            Kokkos::parallel_reduce(
                "tfbench::tests::exec::lane_sum",
                Kokkos::RangePolicy<decltype(space)>(space, range.first, range.second),
                [](std::int64_t i, double& acc) { acc += double(i); }, sum);
            return sum;
          });
    });
  });
  REQUIRE(ran.value().has_value());
  REQUIRE(std::accumulate(partial.begin(), partial.end(), 0.0) == Approx(999.0 * 1000 / 2));
}

TEST_CASE("An independent runtime reachable from the lanes is rejected before any lane runs",
          "[exec][lanes]") {
  auto backend = tfbench::testing::test_backend();
  std::atomic<int> lanes_run{0};
  auto rejected = backend.with_session([&](Session& s) {
    return with_outer_lanes(s, {&p::kokkos_batched_serial, &p::openblas}, [&](OuterLane&) { ++lanes_run; });
  });
  REQUIRE(rejected.has_value());
  REQUIRE_FALSE(rejected->has_value());
  REQUIRE(rejected->error().kind == RouteErrorKind::IndependentRuntimeInFanOut);
  REQUIRE(lanes_run.load() == 0);
  // Outside fan-out the same provider is a legitimate single or per-item call.
  REQUIRE(backend
              .with_session([](Session& s) {
                return resolve_batch_route(s, BatchPolicy{BatchStrategy::ProviderItems, {}}, {16, 64, 262144},
                                           {&p::openblas});
              })
              .value()
              .value()
              .provider == &p::openblas);
}

TEST_CASE("Inside a lane: routes stay sequential, same-pool work is allowed, BLAS is refused",
          "[exec][lanes]") {
  auto backend = tfbench::testing::test_backend();
  std::atomic<int> ok{0}, lanes{0};
  auto ran = backend.with_session([&](Session& s) {
    return with_outer_lanes(s, {&p::kokkos_batched_serial, &p::kokkos_same_pool}, [&](OuterLane& lane) {
      ++lanes;
      Session& child = lane.session();
      auto auto_route =
          resolve_batch_route(child, std::nullopt, {100000, 8, 512}, {&p::kokkos_batched_serial});
      auto same_pool = resolve_batch_route(child, std::nullopt, {4, 8, 512}, {&p::kokkos_same_pool});
      auto blas = resolve_batch_route(child, BatchPolicy{BatchStrategy::ProviderItems, {}}, {4, 8, 512},
                                      {&p::openblas});
      auto nested = check_outer_fan_out(child, {&p::kokkos_batched_serial});
      if (auto_route && auto_route->strategy == BatchStrategy::Sequential && same_pool &&
          same_pool->strategy == BatchStrategy::ProviderItems && !blas &&
          blas.error().kind == RouteErrorKind::IndependentRuntimeInFanOut && nested && nested->lanes() == 1 &&
          !check_provider_allowed(child.context(), p::lapack))
        ++ok;
      // Entering any backend from a lane is reentry.
      auto entry = backend.with_session([](Session&) {});
      if (entry || entry.error().kind != SessionEntryErrorKind::Reentered) --ok;
    });
  });
  REQUIRE(ran.value().has_value());
  REQUIRE(ok.load() == lanes.load());
  REQUIRE(lanes.load() == backend.context().threads);
}

TEST_CASE("A lane exception cancels peers, is rethrown after the join, and the session stays usable",
          "[exec][lanes]") {
  auto backend = tfbench::testing::test_backend();
  std::atomic<int> finished{0}, started{0};
  auto outcome = backend.with_session([&](Session& s) {
    bool threw = false;
    try {
      (void)with_outer_lanes(s, {}, [&](OuterLane& lane) {
        ++started;  // throw once every peer runs (a peer arriving after cancellation skips its lane)
        tfbench::testing::eventually([&] { return started.load() == lane.count(); });
        if (lane.index() == 0) {
          ++finished;
          throw std::runtime_error("lane 0 failed");
        }
        tfbench::testing::eventually([&] { return lane.cancelled(); }, 10.0);
        ++finished;
      });
    } catch (const std::runtime_error& e) {
      threw = std::string(e.what()) == "lane 0 failed";
    }
    const bool joined = finished.load() == s.threads();
    auto again = with_outer_lanes(s, {}, [](OuterLane&) {});
    return threw && joined && again.has_value();
  });
  REQUIRE(outcome.value());
}

TEST_CASE("A fan-out proof belongs to its session", "[exec][lanes]") {
  auto a = tfbench::testing::test_backend();
  std::optional<OuterFanOut> proof;
  REQUIRE(a.with_session([&](Session& s) { proof.emplace(check_outer_fan_out(s, {}).value()); }).has_value());
  auto reused = a.with_session([&](Session& s) { return submit_outer(s, *proof, [](OuterLane&) {}); });
  REQUIRE(reused.value().error().kind == RouteErrorKind::WrongThread);
}

TEST_CASE("lane_item_range splits items contiguously", "[exec][lanes]") {
  REQUIRE(lane_item_range(0, 3, 10) == std::make_pair<std::int64_t, std::int64_t>(0, 4));
  REQUIRE(lane_item_range(1, 3, 10) == std::make_pair<std::int64_t, std::int64_t>(4, 7));
  REQUIRE(lane_item_range(2, 3, 10) == std::make_pair<std::int64_t, std::int64_t>(7, 10));
  REQUIRE(lane_item_range(3, 4, 2) == std::make_pair<std::int64_t, std::int64_t>(2, 2));
  REQUIRE(lane_item_range(0, 0, 2) == std::make_pair<std::int64_t, std::int64_t>(0, 0));
}

TEST_CASE("Each lane draws private scratch and outputs from the shared pool, all returned after the join",
          "[exec][lanes][lease]") {
  auto backend = tfbench::testing::test_backend();
  const int lanes = backend.context().threads;
  std::vector<void*> blocks(static_cast<std::size_t>(lanes), nullptr);
  std::vector<double> sums(static_cast<std::size_t>(lanes), 0);
  std::atomic<int> holding{0};
  auto ran = backend.with_session([&](Session& s) {
    return with_outer_lanes(s, {&p::kokkos_batched_serial}, [&](OuterLane& lane) {
      auto scratch = lane.session().scratch(4096);
      auto out = lane.session().output_lease<double>({256});
      ++holding;  // compare addresses while every lane holds its blocks (a returned block is reused)
      tfbench::testing::eventually([&] { return holding.load() == lane.count(); });
      double* tmp = scratch.as<double>(256);
      for (int i = 0; i < 256; ++i) tmp[i] = lane.index() + i;
      for (int i = 0; i < 256; ++i) out.data()[i] = tmp[i];
      blocks[static_cast<std::size_t>(lane.index())] = scratch.data();
      auto tensor = std::move(out).publish_host();
      double sum = 0;
      for (Index i = 0; i < 256; ++i) sum += tensor.at({i});
      sums[static_cast<std::size_t>(lane.index())] = sum;
    });
  });
  REQUIRE(ran.value().has_value());
  REQUIRE(std::set<void*>(blocks.begin(), blocks.end()).size() == blocks.size());
  for (int l = 0; l < lanes; ++l) REQUIRE(sums[static_cast<std::size_t>(l)] == 256.0 * l + 255.0 * 256 / 2);
  REQUIRE(backend.host_pool()->stats().checkouts_outstanding == 0);
  REQUIRE(backend.lease_stats().outputs_published == static_cast<std::uint64_t>(lanes));
}
