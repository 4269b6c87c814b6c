// Batch policy: thresholds and the lane cost model of Auto, forced strategies and their
// typed conflicts, candidate preference, and precedence per-operation > scoped > backend default.

#include <catch2/catch.hpp>

#include <stdexcept>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"

using namespace tfbench;
namespace p = tfbench::providers;

namespace {
ExecutionContext context(int threads, bool outer = false) {
  ExecutionContext c;
  c.space = threads > 1 ? ExecSpaceKind::OpenMP : ExecSpaceKind::Serial;
  c.threads = threads;
  c.outer_active = outer;
  return c;
}
BatchPolicy forced(BatchStrategy s) {
  return BatchPolicy{s, {}};
}
const ProviderCandidates serial_then_blas{&p::kokkos_batched_serial, &p::openblas};
}  // namespace

TEST_CASE("Batch thresholds have their documented defaults", "[exec][batch]") {
  const BatchThresholds t;
  REQUIRE(t.vendor_batch_max_item_dim == 16);
  REQUIRE(t.outer_min_items == 2);
  REQUIRE(t.outer_min_items_per_lane == 1);
  // Unset: a provider's declared item cost, else the default 50 ns.
  REQUIRE_FALSE(t.lane_item_overhead_ns.has_value());
  REQUIRE(kDefaultLaneItemOverheadNs == 50);
  REQUIRE(p::kokkos_batched_serial.item_overhead_ns < 0);
  REQUIRE(t.lane_muladds_per_ns == 16);
  REQUIRE(t.lane_min_work_ns == 8000);
  REQUIRE(BatchPolicy{}.strategy == BatchStrategy::Auto);
  REQUIRE(std::string(name(BatchStrategy::WholeBatchVendor)) == "whole-batch-vendor");
  REQUIRE(std::string(name(BatchStrategy::OuterParallel)) == "outer-parallel");
}

TEST_CASE("Auto follows the lane cost model", "[exec][batch]") {
  const BatchPolicy autop;
  // 1000 items of 8^3: 50 + 512/16 = 82 ns each, 82 us in all: 10 lanes' worth, capped by 4 threads.
  auto big = resolve_batch_route(context(4), autop, {1000, 8, 512}, serial_then_blas).value();
  REQUIRE(big.strategy == BatchStrategy::OuterParallel);
  REQUIRE(big.lanes == 4);
  REQUIRE(big.provider == &p::kokkos_batched_serial);
  // 100 items: 8.2 us, one lane's worth -> no fan-out.
  auto short_batch = resolve_batch_route(context(4), autop, {100, 8, 512}, serial_then_blas).value();
  REQUIRE(short_batch.strategy == BatchStrategy::Sequential);
  REQUIRE(short_batch.lanes == 1);
  // 200 items: 16.4 us -> 2 lanes.
  REQUIRE(resolve_batch_route(context(4), autop, {200, 8, 512}, serial_then_blas).value().lanes == 2);
  // A one-thread context, or a lane, never fans out.
  REQUIRE(resolve_batch_route(context(1), autop, {1000, 8, 512}, serial_then_blas).value().strategy ==
          BatchStrategy::Sequential);
  REQUIRE(resolve_batch_route(context(4, true), autop, {1000, 8, 512}, serial_then_blas).value().strategy ==
          BatchStrategy::Sequential);
}

TEST_CASE("A provider's declared item cost replaces the default in the lane cost model", "[exec][batch]") {
  // An inline kernel: 2 ns per item. 512 items of 2^3: 2.5 ns each, 1.3 us in all: no fan-out,
  // where the default 50 ns (25.9 us, three lanes' worth) would start two lanes.
  static const ProviderDecl inline_kernel{"inline", ProviderParallelism::Sequential, true, true, false, 2};
  const BatchPolicy autop;
  const BatchProblem tiny{512, 2, 8};
  auto declared = resolve_batch_route(context(2), autop, tiny, {&inline_kernel}).value();
  REQUIRE(declared.strategy == BatchStrategy::Sequential);
  REQUIRE(declared.provider == &inline_kernel);
  REQUIRE(resolve_batch_route(context(2), autop, tiny, {&p::kokkos_batched_serial}).value().lanes == 2);
  // Enough work still fans out: 512 items of 8^3 at 2 + 32 ns = 17.4 us, two lanes' worth.
  REQUIRE(resolve_batch_route(context(2), autop, {512, 8, 512}, {&inline_kernel}).value().lanes == 2);
  // An explicit threshold applies to every provider, declared or not.
  BatchPolicy explicit_cost;
  explicit_cost.thresholds.lane_item_overhead_ns = 50;
  REQUIRE(resolve_batch_route(context(2), explicit_cost, tiny, {&inline_kernel}).value().lanes == 2);
  explicit_cost.thresholds.lane_item_overhead_ns = -1;
  REQUIRE(resolve_batch_route(context(2), explicit_cost, tiny, {&inline_kernel}).error().kind ==
          RouteErrorKind::InvalidPolicy);
}

TEST_CASE("Auto's thresholds are overridable", "[exec][batch]") {
  BatchPolicy cheap_lanes;
  cheap_lanes.thresholds.lane_min_work_ns = 100;
  REQUIRE(resolve_batch_route(context(4), cheap_lanes, {100, 8, 512}, serial_then_blas).value().lanes == 4);
  BatchPolicy fat_lanes;
  fat_lanes.thresholds.outer_min_items_per_lane = 600;  // 1000 items feed one such lane only
  REQUIRE(resolve_batch_route(context(4), fat_lanes, {1000, 8, 512}, serial_then_blas).value().strategy ==
          BatchStrategy::Sequential);
  BatchPolicy long_batches;
  long_batches.thresholds.outer_min_items = 5000;
  REQUIRE(resolve_batch_route(context(4), long_batches, {1000, 8, 512}, serial_then_blas).value().strategy ==
          BatchStrategy::Sequential);
  BatchPolicy slow_lanes;
  slow_lanes.thresholds.lane_muladds_per_ns = 1;  // 562 ns per item: 100 items = 7 lanes' worth
  REQUIRE(resolve_batch_route(context(8), slow_lanes, {100, 8, 512}, serial_then_blas).value().lanes == 7);
}

TEST_CASE("Auto uses a whole-batch vendor call only for small items", "[exec][batch]") {
  const ProviderCandidates vendor_first{&p::vendor_batched, &p::kokkos_batched_serial};
  const BatchPolicy autop;
  REQUIRE(resolve_batch_route(context(1), autop, {64, 16, 4096}, vendor_first).value().strategy ==
          BatchStrategy::WholeBatchVendor);
  REQUIRE(resolve_batch_route(context(1), autop, {64, 17, 4913}, vendor_first).value().provider ==
          &p::kokkos_batched_serial);
  BatchPolicy bigger;
  bigger.thresholds.vendor_batch_max_item_dim = 32;
  REQUIRE(resolve_batch_route(context(1), bigger, {64, 17, 4913}, vendor_first).value().strategy ==
          BatchStrategy::WholeBatchVendor);
  // No whole-batch call inside fan-out.
  REQUIRE(resolve_batch_route(context(4, true), autop, {64, 16, 4096}, vendor_first).value().strategy ==
          BatchStrategy::Sequential);
}

TEST_CASE("Auto picks a supported route: provider-managed items outside fan-out, a typed error inside",
          "[exec][batch]") {
  const ProviderCandidates blas_only{&p::openblas};
  auto outside = resolve_batch_route(context(4), BatchPolicy{}, {1000, 8, 512}, blas_only).value();
  REQUIRE(outside.strategy == BatchStrategy::ProviderItems);
  REQUIRE(outside.provider == &p::openblas);
  auto inside = resolve_batch_route(context(1, true), BatchPolicy{}, {1000, 8, 512}, blas_only);
  REQUIRE_FALSE(inside.has_value());
  REQUIRE(inside.error().kind == RouteErrorKind::IndependentRuntimeInFanOut);
}

TEST_CASE("A forced strategy that conflicts with every provider is a typed error, never a fallback",
          "[exec][batch]") {
  const BatchProblem problem{64, 8, 512};
  auto items_in_lane = resolve_batch_route(context(1, true), forced(BatchStrategy::ProviderItems), problem,
                                           ProviderCandidates{&p::openblas});
  REQUIRE(items_in_lane.error().kind == RouteErrorKind::IndependentRuntimeInFanOut);
  REQUIRE(items_in_lane.error().strategy == BatchStrategy::ProviderItems);

  auto outer_blas = resolve_batch_route(context(4), forced(BatchStrategy::OuterParallel), problem,
                                        ProviderCandidates{&p::openblas, &p::lapack});
  REQUIRE(outer_blas.error().kind == RouteErrorKind::IndependentRuntimeInFanOut);

  auto outer_one_thread =
      resolve_batch_route(context(1), forced(BatchStrategy::OuterParallel), problem, serial_then_blas);
  REQUIRE(outer_one_thread.error().kind == RouteErrorKind::CannotFanOut);

  auto vendor =
      resolve_batch_route(context(1), forced(BatchStrategy::WholeBatchVendor), problem, serial_then_blas);
  REQUIRE(vendor.error().kind == RouteErrorKind::NoWholeBatchProvider);

  auto vendor_in_lane = resolve_batch_route(context(1, true), forced(BatchStrategy::WholeBatchVendor),
                                            problem, ProviderCandidates{&p::vendor_batched});
  REQUIRE(vendor_in_lane.error().kind == RouteErrorKind::WholeBatchInFanOut);

  auto sequential_blas = resolve_batch_route(context(1), forced(BatchStrategy::Sequential), problem,
                                             ProviderCandidates{&p::openblas});
  REQUIRE(sequential_blas.error().kind == RouteErrorKind::ProviderNotSequential);

  auto mixed = resolve_batch_route(context(4), forced(BatchStrategy::OuterParallel), problem,
                                   ProviderCandidates{&p::openblas, &p::vendor_batched});
  REQUIRE(mixed.error().kind == RouteErrorKind::NoRoute);
  REQUIRE(mixed.error().message.find("openblas") != std::string::npos);

  auto none = resolve_batch_route(context(1), BatchPolicy{}, problem, ProviderCandidates{});
  REQUIRE(none.error().kind == RouteErrorKind::NoCandidates);
}

TEST_CASE("A forced strategy takes the first compatible candidate in preference order", "[exec][batch]") {
  const BatchProblem problem{8, 4, 64};
  REQUIRE(resolve_batch_route(context(1), forced(BatchStrategy::Sequential), problem,
                              ProviderCandidates{&p::openblas, &p::libxsmm, &p::kokkos_batched_serial})
              .value()
              .provider == &p::libxsmm);
  REQUIRE(resolve_batch_route(context(1), forced(BatchStrategy::Sequential), problem,
                              ProviderCandidates{&p::kokkos_batched_serial, &p::libxsmm})
              .value()
              .provider == &p::kokkos_batched_serial);
  auto items = resolve_batch_route(context(4), forced(BatchStrategy::ProviderItems), problem,
                                   ProviderCandidates{&p::openblas, &p::kokkos_same_pool});
  REQUIRE(items.value().provider == &p::openblas);  // allowed outside fan-out
  auto outer = resolve_batch_route(context(4), forced(BatchStrategy::OuterParallel), problem,
                                   ProviderCandidates{&p::openblas, &p::kokkos_batched_serial});
  REQUIRE(outer.value().provider == &p::kokkos_batched_serial);
  REQUIRE(outer.value().lanes == 4);  // forced: no cost model, as many lanes as threads and items allow
  REQUIRE(resolve_batch_route(context(4), forced(BatchStrategy::OuterParallel), {3, 4, 64}, serial_then_blas)
              .value()
              .lanes == 3);
}

TEST_CASE("Invalid problems and thresholds are typed errors", "[exec][batch]") {
  REQUIRE(resolve_batch_route(context(1), BatchPolicy{}, {-1, 4, 64}, serial_then_blas).error().kind ==
          RouteErrorKind::InvalidProblem);
  REQUIRE(resolve_batch_route(context(1), BatchPolicy{}, {1, 4, -1}, serial_then_blas).error().kind ==
          RouteErrorKind::InvalidProblem);
  BatchPolicy bad;
  bad.thresholds.lane_muladds_per_ns = 0;
  REQUIRE(resolve_batch_route(context(1), bad, {1, 4, 64}, serial_then_blas).error().kind ==
          RouteErrorKind::InvalidPolicy);
  bad = BatchPolicy{};
  bad.thresholds.outer_min_items_per_lane = 0;
  REQUIRE(resolve_batch_route(context(1), bad, {1, 4, 64}, serial_then_blas).error().kind ==
          RouteErrorKind::InvalidPolicy);
}

TEST_CASE("Precedence: per-operation > scoped > backend default; a scope restores on return and on throw",
          "[exec][batch]") {
  CpuBackendConfig config;
  config.batch_policy = forced(BatchStrategy::Sequential);
  auto backend = CpuBackend::create(config).value();
  const BatchProblem problem{8, 4, 64};
  const ProviderCandidates candidates{&p::kokkos_batched_serial, &p::openblas};
  REQUIRE(backend
              .with_session([&](Session& s) {
                REQUIRE(effective_batch_policy(s, std::nullopt).strategy == BatchStrategy::Sequential);
                REQUIRE(resolve_batch_route(s, std::nullopt, problem, candidates).value().strategy ==
                        BatchStrategy::Sequential);
                with_batch_policy(s, forced(BatchStrategy::ProviderItems), [&](Session& scoped) {
                  REQUIRE(resolve_batch_route(scoped, std::nullopt, problem, candidates).value().strategy ==
                          BatchStrategy::ProviderItems);
                  // Per-operation wins over the scope.
                  REQUIRE(resolve_batch_route(scoped, forced(BatchStrategy::Sequential), problem, candidates)
                              .value()
                              .strategy == BatchStrategy::Sequential);
                  with_batch_policy(scoped, forced(BatchStrategy::WholeBatchVendor), [&](Session& inner) {
                    REQUIRE(resolve_batch_route(inner, std::nullopt, problem, candidates).error().kind ==
                            RouteErrorKind::NoWholeBatchProvider);
                  });
                  REQUIRE(s.scoped_batch_policy()->strategy == BatchStrategy::ProviderItems);  // restored
                  REQUIRE_THROWS_AS(
                      with_batch_policy(scoped, forced(BatchStrategy::Sequential),
                                        [&](Session&) -> int { throw std::runtime_error("x"); }),
                      std::runtime_error);
                  REQUIRE(s.scoped_batch_policy()->strategy == BatchStrategy::ProviderItems);  // restored
                });
                REQUIRE_FALSE(s.scoped_batch_policy().has_value());
                REQUIRE(effective_batch_policy(s, std::nullopt) == backend.batch_policy());
              })
              .has_value());
  // The backend default changes for later sessions only, admitted like a session.
  REQUIRE(backend.set_batch_policy(forced(BatchStrategy::ProviderItems)).has_value());
  REQUIRE(
      backend
          .with_session([&](Session& s) { return resolve_batch_route(s, std::nullopt, problem, candidates); })
          .value()
          .value()
          .strategy == BatchStrategy::ProviderItems);
}

TEST_CASE("Provider checks inside a lane reject independent runtimes before the call", "[exec][batch]") {
  REQUIRE(check_provider_allowed(context(4), p::openblas).has_value());
  REQUIRE(check_provider_allowed(context(1, true), p::openblas).error().kind ==
          RouteErrorKind::IndependentRuntimeInFanOut);
  REQUIRE(check_provider_allowed(context(1, true), p::kokkos_batched_serial).has_value());
  const ProviderDecl unsafe{"unsafe", ProviderParallelism::Sequential, false, true, false};
  REQUIRE(check_provider_allowed(context(1, true), unsafe).error().kind ==
          RouteErrorKind::NotConcurrentCallSafe);
}
