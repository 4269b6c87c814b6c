// The public batched operations through a session: every strategy and provider against the
// reference, the route reported back, typed errors before any write (sentinels stay), singular items,
// allocating variants, the large gemm, and the device backend's memory.

#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "batched_test_support.hpp"
#include "ops/batched/fan_out_check.hpp"
#include "ops/batched/host_providers.hpp"
#include "test_context.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/batched_solve.hpp"
#include "tfbench/engine/ops/gemm.hpp"
#include "tfbench/engine/storage/transfer.hpp"

using tfbench::BatchPolicy;
using tfbench::BatchStrategy;
using tfbench::Host;
using tfbench::Index;
using tfbench::Rank;
using tfbench::RouteErrorKind;
using tfbench::Session;
using tfbench::Tensor;
using tfbench::ops::BatchedErrc;
using tfbench::ops::BatchedOptions;
using tfbench::ops::ItemProvider;

namespace {

using HostT = Tensor<double, Rank<3>, Host>;

tfbench::CpuBackend backend_for_test();

/// body(session) in a session of the test's backend that fans out in the engine's own OpenMP region;
/// in any other context nothing runs.
template <class Body>
void in_fan_out_session(const Body& body) {
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                if (s.context().space != tfbench::ExecSpaceKind::OpenMP || !s.context().can_fan_out()) {
                  SUCCEED("no fan-out in this context");
                  return;
                }
                body(s);
              })
              .has_value());
}

tfbench::CpuBackend backend_for_test() {
  tfbench::CpuBackendConfig config;
  config.space = tfbench::is_host_space(tfbench::testing::space()) ? tfbench::testing::space()
                                                                   : tfbench::ExecSpaceKind::Serial;
  auto made = tfbench::CpuBackend::create(config);
  REQUIRE(made.has_value());
  return std::move(made).value();
}

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mag(0.1, 1.0);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> v(n);
  for (auto& x : v) x = (sign(rng) ? 1 : -1) * mag(rng);
  return v;
}

HostT random_tensor(Index d0, Index d1, Index d2, std::uint64_t seed) {
  return HostT::from_col_major({d0, d1, d2}, random_values(std::size_t(d0 * d1 * d2), seed));
}

HostT filled(Index d0, Index d1, Index d2, double v) {
  return HostT::from_col_major({d0, d1, d2}, std::vector<double>(std::size_t(d0 * d1 * d2), v));
}

template <class VA, class VB, class VC>
double gemm_error(const VA& a, const VB& b, const VC& c, const std::vector<double>& c0, double alpha,
                  double beta) {
  const Index m = c.shape()[0], n = c.shape()[1], k = a.shape()[1], batch = c.shape()[2];
  double diff = 0, scale = 0;
  for (Index it = 0; it < batch; ++it)
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < m; ++i) {
        double s = 0;
        for (Index p = 0; p < k; ++p) s += a(i, p, it) * b(p, j, it);
        const double ref = alpha * s + (beta != 0 ? beta * c0[std::size_t(i + m * (j + n * it))] : 0.0);
        diff = std::max(diff, std::abs(c(i, j, it) - ref));
        scale = std::max(scale, std::abs(ref));
      }
  return diff / scale;
}

bool all_equal(const HostT& t, double v) {
  for (double x : t.as_slice())
    if (x != v) return false;
  return true;
}

/// An outer-parallel run reports lane 0's items: an even share, give or take the learned lead (at
/// most half an even share; docs/ops-batched.md, "The lanes' split").
void check_first_lane_items(const tfbench::ops::BatchRun& run) {
  REQUIRE(run.first_lane_items.has_value());
  if (run.fan_out_withheld.value_or(false)) {  // Auto's fan-out withheld: the calling thread ran them all
    CHECK(*run.first_lane_items == run.items);
    return;
  }
  const std::int64_t lanes = std::min<std::int64_t>(run.lanes, run.items);
  const std::int64_t even = (run.items + lanes - 1) / lanes, lead = run.items / lanes / 2;
  CHECK(*run.first_lane_items >= even - lead);
  CHECK(*run.first_lane_items <= even + lead);
}

}  // namespace

TEST_CASE("batched_gemm_into: every strategy and provider matches the reference and reports its route",
          "[batched][facade]") {
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                for (Index n : {2, 3, 8, 16, 33}) {
                  const Index batch = 37;
                  auto a = random_tensor(n, n, batch, 1), b = random_tensor(n, n, batch, 2);
                  const auto c0 = random_values(std::size_t(n * n * batch), 3);
                  const auto av = a.view();
                  const auto bv = b.view();
                  struct Case {
                    BatchStrategy strategy;
                    std::optional<ItemProvider> provider;
                    double beta;
                  };
                  std::vector<Case> cases;
                  for (BatchStrategy st : {BatchStrategy::Auto, BatchStrategy::Sequential,
                                           BatchStrategy::OuterParallel, BatchStrategy::ProviderItems})
                    for (double beta : {0.0, 1.0, -0.5}) cases.push_back({st, std::nullopt, beta});
                  for (ItemProvider p : {ItemProvider::Specialized, ItemProvider::Libxsmm,
                                         ItemProvider::KokkosBatched, ItemProvider::Blas})
                    for (double beta : {0.0, 1.0}) cases.push_back({BatchStrategy::Auto, p, beta});
                  for (const Case& cs : cases) {
                    HostT c = HostT::from_col_major({n, n, batch}, c0);
                    auto cw = c.view_mut();
                    BatchedOptions opt;
                    opt.policy = BatchPolicy{cs.strategy, {}};
                    opt.provider = cs.provider;
                    const auto run = tfbench::ops::batched_gemm_into(s, av, bv, cw, 1.0, cs.beta, opt);
                    INFO("n " << n << " strategy " << tfbench::name(cs.strategy) << " provider "
                              << (cs.provider ? tfbench::ops::name(*cs.provider) : "-") << " beta "
                              << cs.beta);
                    if (cs.strategy == BatchStrategy::OuterParallel && !s.context().can_fan_out()) {
                      REQUIRE_FALSE(run.has_value());
                      CHECK(run.error().code == BatchedErrc::NoRoute);
                      CHECK(run.error().route->kind == RouteErrorKind::CannotFanOut);
                      continue;
                    }
                    if (cs.provider == ItemProvider::Libxsmm && !tfbench::impl::batched::libxsmm_compiled()) {
                      CHECK_FALSE(run.has_value());
                      continue;
                    }
                    if (cs.provider == ItemProvider::Libxsmm && cs.beta != 0 && cs.beta != 1) continue;
                    REQUIRE(run.has_value());
                    CHECK(run->items == batch);
                    if (cs.strategy != BatchStrategy::Auto) CHECK(run->strategy == cs.strategy);
                    if (cs.provider) CHECK(run->provider == *cs.provider);
                    if (cs.strategy == BatchStrategy::ProviderItems)
                      CHECK(run->provider == ItemProvider::Blas);
                    if (run->strategy == BatchStrategy::OuterParallel) {
                      CHECK(run->lanes > 1);
                      check_first_lane_items(run.value());
                    } else {
                      CHECK(run->lanes == 1);
                      CHECK_FALSE(run->first_lane_items.has_value());  // one lane: no split to report
                    }
                    CHECK(gemm_error(av, bv, c.view(), c0, 1.0, cs.beta) <= 1e-12);
                  }
                }
              })
              .has_value());
}

TEST_CASE(
    "batched_gemm_into: Auto's fan-out is checked on its calls and withheld while slower; a forced one "
    "never is",
    "[batched][facade][fan-out-check]") {
  in_fan_out_session([&](Session& s) {
    // 64 items of 2 x 2: tens of nanoseconds of work against a region's fork and join
    // (0.4-3 us), so the calling thread alone is faster wherever this runs.
    const Index n = 2, batch = 64;
    auto a = random_tensor(n, n, batch, 11), b = random_tensor(n, n, batch, 12);
    const auto av = a.view();
    const auto bv = b.view();
    const std::vector<double> c0(std::size_t(n * n * batch), 7.0);
    BatchPolicy cheap_lanes;  // Auto, its model fanning out any batch
    cheap_lanes.thresholds.lane_min_work_ns = 0;
    const auto run_with = [&](const BatchPolicy& policy) {
      HostT c = HostT::from_col_major({n, n, batch}, c0);
      auto cw = c.view_mut();
      auto run = tfbench::ops::batched_gemm_into(s, av, bv, cw, 1.0, 0.0, {policy, {}, {}});
      REQUIRE(run.has_value());
      CHECK(gemm_error(av, bv, c.view(), c0, 1.0, 0.0) <= 1e-12);
      return run.value();
    };
    tfbench::impl::batched::FanOutCheck::reset_thread();
    int withheld = 0;
    const int calls = 200;
    for (int call = 0; call < calls; ++call) {
      const auto run = run_with(cheap_lanes);
      REQUIRE(run.strategy == BatchStrategy::OuterParallel);  // Auto's route, withheld or not
      REQUIRE(run.fan_out_withheld.has_value());
      check_first_lane_items(run);
      if (*run.fan_out_withheld) ++withheld;
    }
    // Withheld from the first sequential probe on, but for a probe each kProbeEvery calls.
    CHECK(withheld >= calls / 2);
    CHECK(tfbench::ops::describe(run_with(cheap_lanes)).find("withheld") != std::string::npos);

    // Forced, or with the check turned off: every call fans out, nothing is reported.
    BatchPolicy forced = cheap_lanes;
    forced.strategy = BatchStrategy::OuterParallel;
    BatchPolicy unchecked = cheap_lanes;
    unchecked.thresholds.check_fan_out = false;
    for (const BatchPolicy& policy : {forced, unchecked}) {
      for (int call = 0; call < 50; ++call) {
        const auto run = run_with(policy);
        CHECK(run.strategy == BatchStrategy::OuterParallel);
        CHECK_FALSE(run.fan_out_withheld.has_value());
        REQUIRE(run.first_lane_items.has_value());
        CHECK(*run.first_lane_items < batch);
      }
    }
  });
}

TEST_CASE("batched_gemm_into: the specialized kernels of every compile-time size scale by alpha and beta",
          "[batched][facade]") {
  // Packed items of the sizes with kernels of their own (2, 4, 8 and the column blocks of 16 and 32
  // on AVX-512 hosts, 2, 4 and 8 on AVX2 ones, the register tile elsewhere) and one without (7). Streamed C
  // must equal the regular stores bit for bit: both paths run one kernel.
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                for (Index n : {2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32}) {
                  const Index batch = 19;
                  auto a = random_tensor(n, n, batch, 11), b = random_tensor(n, n, batch, 12);
                  const auto c0 = random_values(std::size_t(n * n * batch), 13);
                  for (double alpha : {1.0, -1.5})
                    for (double beta : {0.0, 1.0, 0.25}) {
                      CAPTURE(n, alpha, beta);
                      BatchedOptions o;
                      o.provider = ItemProvider::Specialized;
                      o.policy = BatchPolicy{BatchStrategy::Sequential, tfbench::BatchThresholds{}, nullptr};
                      auto regular = tfbench::testing::aligned_items(n, batch, 0.0);
                      std::copy(c0.begin(), c0.end(), regular.data());
                      auto ran = tfbench::ops::batched_gemm_into(s, a, b, regular, alpha, beta, o);
                      REQUIRE(ran.has_value());
                      CHECK(gemm_error(a.view(), b.view(), regular.view(), c0, alpha, beta) <= 1e-12);
                      if (beta != 0.0) continue;
                      o.streaming_stores = true;
                      // At a 64-byte boundary (16 and 32 stream from the registers) and 32 bytes past
                      // one (through a tile).
                      for (std::size_t offset : {0, 32}) {
                        CAPTURE(offset);
                        auto streamed = tfbench::testing::aligned_items(n, batch, -1.0, offset);
                        auto ran_streamed =
                            tfbench::ops::batched_gemm_into(s, a, b, streamed, alpha, beta, o);
                        REQUIRE(ran_streamed.has_value());
                        CHECK(std::equal(regular.data(), regular.data() + n * n * batch, streamed.data()));
#if defined(__AVX__)
                        // Whole 32-byte vectors of C at 32-byte aligned addresses: the kernel streams.
                        if ((n * n) % 4 == 0)
                          CHECK(ran_streamed->streaming_stores == std::optional<bool>(true));
#endif
                      }
                    }
                }
              })
              .has_value());
}

TEST_CASE("batched_gemm_into: strided items (padded, interleaved, row-major, negative strides)",
          "[batched][facade]") {
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                const Index m = 5, k = 4, n = 6, batch = 9;
                // A: padded leading dimension (every item a [m, k] window of a [m + 2, k + 1] block).
                auto a_store = random_tensor(m + 2, k + 1, batch, 11);
                const std::array<Index, 3> a_shape{m, k, batch}, a_strides{1, m + 2, (m + 2) * (k + 1)};
                const auto a = a_store.strided_view(a_shape, a_strides);
                // B: batch-interleaved ([batch, k, n] storage permuted to [k, n, batch]).
                auto b_store = random_tensor(batch, k, n, 12);
                const std::array<Index, 3> perm{1, 2, 0};
                const auto b = b_store.view().permute(perm);
                // C: row-major items, stored in reverse batch order (negative batch stride).
                auto c_store = filled(n, m, batch, 0.0);
                const std::array<Index, 3> c_shape{m, n, batch}, c_strides{n, 1, -(m * n)};
                auto c = c_store.strided_view_mut(c_shape, c_strides, (batch - 1) * m * n);
                std::vector<double> zeros(std::size_t(m * n * batch), 0.0);
                for (BatchStrategy st :
                     {BatchStrategy::Auto, BatchStrategy::Sequential, BatchStrategy::ProviderItems}) {
                  const auto run =
                      tfbench::ops::batched_gemm_into(s, a, b, c, 0.5, 0.0, {BatchPolicy{st, {}}, {}, {}});
                  INFO(tfbench::name(st));
                  if (st ==
                      BatchStrategy::ProviderItems) {  // BLAS cannot take a negative stride: no provider
                    REQUIRE_FALSE(run.has_value());
                    CHECK(run.error().code == BatchedErrc::NoRoute);
                    continue;
                  }
                  REQUIRE(run.has_value());
                  CHECK(gemm_error(a, b, c, zeros, 0.5, 0.0) <= 1e-12);
                }
              })
              .has_value());
}

TEST_CASE("batched_gemm_into: validation and route errors leave the destination untouched",
          "[batched][facade]") {
  auto backend = backend_for_test();
  REQUIRE(
      backend
          .with_session([&](Session& s) {
            constexpr double sentinel = 12345.0;
            auto a = random_tensor(4, 3, 5, 21), b = random_tensor(3, 2, 5, 22);
            const auto av = a.view();
            const auto bv = b.view();
            auto expect_untouched = [&](HostT& c, auto&& call, BatchedErrc code) {
              const auto r = call();
              REQUIRE_FALSE(r.has_value());
              CHECK(r.error().code == code);
              CHECK_FALSE(r.error().message.empty());
              CHECK(all_equal(c, sentinel));
              return r.error();  // the typed error, for checks beyond its code
            };
            {  // wrong shape of C
              auto c = filled(4, 3, 5, sentinel);
              auto cw = c.view_mut();
              expect_untouched(
                  c, [&] { return tfbench::ops::batched_gemm_into(s, av, bv, cw); },
                  BatchedErrc::ShapeMismatch);
            }
            {  // rank 2 operand
              auto c = filled(4, 2, 5, sentinel);
              auto cw = c.view_mut();
              auto flat = Tensor<double, Rank<2>, Host>::from_col_major({4, 15}, random_values(60, 1));
              const auto fv = flat.view();
              expect_untouched(
                  c, [&] { return tfbench::ops::batched_gemm_into(s, fv, bv, cw); },
                  BatchedErrc::RankMismatch);
            }
            {  // complex alpha for a real dtype
              auto c = filled(4, 2, 5, sentinel);
              auto cw = c.view_mut();
              expect_untouched(
                  c,
                  [&] { return tfbench::ops::batched_gemm_into(s, av, bv, cw, std::complex<double>(1, 1)); },
                  BatchedErrc::InvalidScalar);
              const auto r = tfbench::ops::batched_gemm_into(s, av, bv, cw, std::complex<double>(1, 1));
              CHECK(r.error().message == "alpha has an imaginary part for a real dtype");
            }
            {  // complex beta for a real dtype
              auto c = filled(4, 2, 5, sentinel);
              auto cw = c.view_mut();
              const auto complex_beta = [&] {
                return tfbench::ops::batched_gemm_into(s, av, bv, cw, 1.0, {0.5, -1});
              };
              expect_untouched(c, complex_beta, BatchedErrc::InvalidScalar);
              CHECK(complex_beta().error().message == "beta has an imaginary part for a real dtype");
            }
            {  // dtype mismatch (f32 destination)
              auto c = filled(4, 2, 5, sentinel);
              auto c32 = Tensor<float, Rank<3>, Host>::from_col_major({4, 2, 5}, std::vector<float>(40, 7.f));
              auto cw = c32.view_mut();
              const auto r = tfbench::ops::batched_gemm_into(s, av, bv, cw);
              REQUIRE_FALSE(r.has_value());
              CHECK(r.error().code == BatchedErrc::DTypeMismatch);
              for (float x : c32.as_slice()) CHECK(x == 7.f);
            }
            {  // C overlapping an input
              auto ab = random_tensor(4, 4, 5, 23);
              const auto abv = ab.view();
              auto cw = ab.view_mut();
              const auto r = tfbench::ops::batched_gemm_into(s, abv, abv, cw);
              REQUIRE_FALSE(r.has_value());
              CHECK(r.error().code == BatchedErrc::InvalidLayout);
            }
            {  // WholeBatchVendor forced on a host space: no whole-batch provider (typed no-route error)
              auto c = filled(4, 2, 5, sentinel);
              auto cw = c.view_mut();
              const auto e = expect_untouched(
                  c,
                  [&] {
                    return tfbench::ops::batched_gemm_into(
                        s, av, bv, cw, 1.0, 0.0, {BatchPolicy{BatchStrategy::WholeBatchVendor, {}}, {}, {}});
                  },
                  BatchedErrc::NoRoute);
              REQUIRE(e.route.has_value());
              CHECK(e.route->kind == RouteErrorKind::NoWholeBatchProvider);
              CHECK(e.route->strategy == BatchStrategy::WholeBatchVendor);
            }
            {  // a forced provider that cannot take alpha != 1 (libxsmm 1.17 bakes alpha = 1 in)
              auto c = filled(4, 2, 5, sentinel);
              auto cw = c.view_mut();
              expect_untouched(
                  c,
                  [&] {
                    return tfbench::ops::batched_gemm_into(s, av, bv, cw, 2.0, 0.0,
                                                           {{}, ItemProvider::Libxsmm, {}});
                  },
                  BatchedErrc::Unsupported);
            }
            {  // ProviderItems inside an outer fan-out lane: OpenBLAS is an independent runtime
              auto c = filled(4, 2, 5, sentinel);
              std::optional<tfbench::ops::BatchedError> seen;
              auto lanes = tfbench::with_outer_lanes(
                  s, {&tfbench::ops::providers::specialized}, [&](tfbench::OuterLane& lane) {
                    if (lane.index() != 0) return;
                    auto cw = c.view_mut();
                    auto r = tfbench::ops::batched_gemm_into(
                        lane.session(), av, bv, cw, 1.0, 0.0,
                        {BatchPolicy{BatchStrategy::ProviderItems, {}}, {}, {}});
                    if (!r) seen = r.error();
                  });
              REQUIRE(lanes.has_value());
              REQUIRE(seen.has_value());
              CHECK(seen->code == BatchedErrc::NoRoute);
              CHECK(seen->route->kind == RouteErrorKind::IndependentRuntimeInFanOut);
              CHECK(all_equal(c, sentinel));
            }
          })
          .has_value());
}

TEST_CASE("batched_gemm: the allocating variant equals the _into result, with the route",
          "[batched][facade]") {
  auto backend = backend_for_test();
  REQUIRE(
      backend
          .with_session([&](Session& s) {
            auto a = random_tensor(6, 5, 13, 31), b = random_tensor(5, 4, 13, 32);
            const auto av = a.view();
            const auto bv = b.view();
            auto out = tfbench::ops::batched_gemm(s, av, bv, -2.0);
            REQUIRE(out.has_value());
            CHECK(out->tensor.shape()[0] == 6);
            CHECK(out->tensor.shape()[1] == 4);
            CHECK(out->tensor.shape()[2] == 13);
            CHECK(out->run.items == 13);
            CHECK(out->tensor.allocation_kind() == tfbench::AllocationKind::Managed);
            std::vector<double> none(6 * 4 * 13, 0.0);
            CHECK(gemm_error(av, bv, out->tensor.view(), none, -2.0, 0.0) <= 1e-12);
            // Validation failures allocate nothing and return the typed error.
            auto bad = tfbench::ops::batched_gemm(s, av, av);
            REQUIRE_FALSE(bad.has_value());
            CHECK(bad.error().code == BatchedErrc::ShapeMismatch);
            // Float and complex element types.
            auto af = Tensor<float, Rank<3>, Host>::from_col_major({3, 3, 4}, std::vector<float>(36, 0.5f));
            auto of = tfbench::ops::batched_gemm(s, af, af);
            REQUIRE(of.has_value());
            for (float x : of->tensor.as_slice()) CHECK(std::abs(x - 0.75f) < 1e-6f);
            using Z = Kokkos::complex<double>;
            auto az = Tensor<Z, Rank<3>, Host>::from_col_major({2, 2, 3}, std::vector<Z>(12, Z(0, 1)));
            auto oz = tfbench::ops::batched_gemm(s, az, az, std::complex<double>(0, 1));
            REQUIRE(oz.has_value());  // i * (2 * i * i) = -2i
            for (Z x : oz->tensor.as_slice()) CHECK(std::abs(x.imag() + 2.0) < 1e-14);
          })
          .has_value());
}

TEST_CASE("batched_gemm_into: the route remembered for the last call follows every change of its inputs",
          "[batched][facade]") {
  // Calls on one thread with the same operands. Before each change of one input of the route's
  // selection, the same call succeeds (so its route is the one remembered); after it, the call must
  // take the route the change gives, not the remembered one.
  auto backend = backend_for_test();
  auto a = random_tensor(4, 4, 9, 41), b = random_tensor(4, 4, 9, 42);
  auto c = filled(4, 4, 9, 0.0);
  auto call_in = [&](Session& s, const BatchedOptions& options, double alpha) {
    return tfbench::ops::batched_gemm_into(s, a, b, c, alpha, 0.0, options);
  };
  auto call = [&](const BatchedOptions& options, double alpha = 1.0) {
    return backend.with_session([&](Session& s) { return call_in(s, options, alpha); }).value();
  };
  BatchedOptions automatic, kokkos;
  kokkos.provider = ItemProvider::KokkosBatched;
  // The options.
  auto first = call(automatic);
  REQUIRE(first.has_value());
  CHECK(first->provider == ItemProvider::Specialized);
  auto forced = call(kokkos);
  REQUIRE(forced.has_value());
  CHECK(forced->provider == ItemProvider::KokkosBatched);
  auto again = call(automatic);
  REQUIRE(again.has_value());
  CHECK(again->provider == ItemProvider::Specialized);
  // The session's provider set: KokkosBatched taken out of the slot refuses the forced provider.
  REQUIRE(call(kokkos).has_value());
  REQUIRE(backend.set_providers(tfbench::ProviderSlot::BatchedGemm, {}).has_value());
  auto refused = call(kokkos);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == BatchedErrc::Unsupported);
  REQUIRE(backend
              .set_providers(tfbench::ProviderSlot::BatchedGemm,
                             {&tfbench::providers::kokkos_batched_serial, &tfbench::providers::libxsmm})
              .has_value());
  auto restored = call(kokkos);
  REQUIRE(restored.has_value());
  CHECK(restored->provider == ItemProvider::KokkosBatched);
  // The backend's default policy: WholeBatchVendor has no route on a host.
  REQUIRE(call(automatic).has_value());
  REQUIRE(backend.set_batch_policy(BatchPolicy{BatchStrategy::WholeBatchVendor, {}}).has_value());
  auto backend_default = call(automatic);
  REQUIRE_FALSE(backend_default.has_value());
  CHECK(backend_default.error().code == BatchedErrc::NoRoute);
  REQUIRE(backend.set_batch_policy(BatchPolicy{}).has_value());
  // A scoped policy, and a per-operation one over it.
  REQUIRE(call(automatic).has_value());
  BatchedOptions sequential;
  sequential.policy = BatchPolicy{BatchStrategy::Sequential, {}};
  auto scoped = backend
                    .with_session([&](Session& s) {
                      return tfbench::with_batch_policy(
                          s, BatchPolicy{BatchStrategy::WholeBatchVendor, {}}, [&](Session& inner) {
                            auto vendor = call_in(inner, automatic, 1.0);
                            auto per_operation = call_in(inner, sequential, 1.0);
                            return std::make_pair(vendor.has_value(), per_operation.has_value());
                          });
                    })
                    .value();
  CHECK_FALSE(scoped.first);
  CHECK(scoped.second);
  // The scalars: libxsmm's kernels multiply by alpha = 1 only.
  BatchedOptions xsmm;
  xsmm.provider = ItemProvider::Libxsmm;
  auto unit = call(xsmm);
  if (unit.has_value()) {  // a build with libxsmm
    CHECK(unit->provider == ItemProvider::Libxsmm);
    auto scaled = call(xsmm, 2.0);
    REQUIRE_FALSE(scaled.has_value());
    CHECK(scaled.error().code == BatchedErrc::Unsupported);
  }
  // The last call computed C with the route it reported.
  auto last = call(automatic);
  REQUIRE(last.has_value());
  CHECK(gemm_error(a.view(), b.view(), c.view(), std::vector<double>(16 * 9, 0.0), 1.0, 0.0) <= 1e-12);
}

namespace {

/// Diagonally dominant items, rows cyclically shifted when `permuted` (pivoting then required).
HostT solve_matrices(Index n, Index batch, bool permuted, std::uint64_t seed) {
  auto v = random_values(std::size_t(n * n * batch), seed);
  for (Index it = 0; it < batch; ++it)
    for (Index i = 0; i < n; ++i) v[std::size_t(i + n * (i + n * it))] += 2.0 * n;
  if (permuted) {
    std::vector<double> w(v.size());
    for (Index it = 0; it < batch; ++it)
      for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < n; ++i)
          w[std::size_t((i + 1) % n + n * (j + n * it))] = v[std::size_t(i + n * (j + n * it))];
    v.swap(w);
  }
  return HostT::from_col_major({n, n, batch}, std::move(v));
}

template <class VA, class VX, class VB>
double residual(const VA& a, const VX& x, const VB& b) {
  const Index n = a.shape()[0], nrhs = b.shape()[1], batch = a.shape()[2];
  double worst = 0;
  for (Index it = 0; it < batch; ++it)
    for (Index r = 0; r < nrhs; ++r)
      for (Index i = 0; i < n; ++i) {
        double s = 0;
        for (Index p = 0; p < n; ++p) s += a(i, p, it) * x(p, r, it);
        worst = std::max(worst, std::abs(s - b(i, r, it)));
      }
  return worst;
}

}  // namespace

TEST_CASE("batched_gemm: Auto prefers libxsmm from n = 8 only for streaming batches, whose kernel prefetches",
          "[batched][facade]") {
  if (!tfbench::impl::batched::libxsmm_compiled()) return;  // then Auto never sees libxsmm
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                // 512 items of 8 x 8 (0.75 MiB of operands): the specialized kernel, in cache.
                auto a = random_tensor(8, 8, 512, 41), b = random_tensor(8, 8, 512, 42);
                auto c = filled(8, 8, 512, 0.0);
                auto cached = tfbench::ops::batched_gemm_into(s, a, b, c);
                REQUIRE(cached.has_value());
                CHECK(cached->provider == ItemProvider::Specialized);
                // 2048 items (3 MiB, beyond kStreamingBatchBytes): libxsmm with its prefetching kernel,
                // which reads the next item's operands; the last item prefetches itself.
                const Index items = 2048;
                auto sa = random_tensor(8, 8, items, 43), sb = random_tensor(8, 8, items, 44);
                auto sc = filled(8, 8, items, 0.0);
                auto streamed = tfbench::ops::batched_gemm_into(s, sa, sb, sc);
                REQUIRE(streamed.has_value());
                CHECK(streamed->provider == ItemProvider::Libxsmm);
                std::vector<double> none(std::size_t(64 * items), 0.0);
                CHECK(gemm_error(sa.view(), sb.view(), sc.view(), none, 1.0, 0.0) <= 1e-12);
                CHECK(streamed->prefetch == std::optional<bool>(true));
                const std::string described =
                    tfbench::ops::describe(*streamed);  // "<strategy> libxsmm+prefetch"
                CHECK(described.substr(described.rfind(' ')) == " libxsmm+prefetch");
                CHECK_FALSE(cached->prefetch.has_value());  // reported for libxsmm routes only
                // The per-operation choice overrides the built-in rule either way, and both kernels
                // compute the same items (the prefetching one reads one item ahead, the last itself).
                BatchedOptions off;
                off.prefetch = false;
                std::fill(sc.data(), sc.data() + 64 * items, -1.0);
                auto unprefetched = tfbench::ops::batched_gemm_into(s, sa, sb, sc, 1.0, 0.0, off);
                REQUIRE(unprefetched.has_value());
                CHECK(unprefetched->provider == ItemProvider::Libxsmm);
                CHECK(unprefetched->prefetch == std::optional<bool>(false));
                const std::string plain = tfbench::ops::describe(*unprefetched);
                CHECK(plain.substr(plain.rfind(' ')) == " libxsmm");
                CHECK(gemm_error(sa.view(), sb.view(), sc.view(), none, 1.0, 0.0) <= 1e-12);
                BatchedOptions on;
                on.provider = ItemProvider::Libxsmm;
                auto in_cache = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, on);
                REQUIRE(in_cache.has_value());
                CHECK(in_cache->prefetch == std::optional<bool>(false));  // in cache: the rule says off
                on.prefetch = true;
                std::fill(c.data(), c.data() + 64 * 512, -1.0);
                auto prefetched = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, on);
                REQUIRE(prefetched.has_value());
                CHECK(prefetched->prefetch == std::optional<bool>(true));
                std::vector<double> zero(std::size_t(64 * 512), 0.0);
                CHECK(gemm_error(a.view(), b.view(), c.view(), zero, 1.0, 0.0) <= 1e-12);
                // n = 4 streams too, but stays on the specialized kernel.
                auto ta = random_tensor(4, 4, 8192, 45), tb = random_tensor(4, 4, 8192, 46);
                auto tc = filled(4, 4, 8192, 0.0);
                auto small = tfbench::ops::batched_gemm_into(s, ta, tb, tc);
                REQUIRE(small.has_value());
                CHECK(small->provider == ItemProvider::Specialized);
                // Rank-1 updates A [8, 1] B [1, 8]: 2048 items hold 1.25 MiB of operands, in cache. The
                // streaming test counts the items' elements, not the square of the largest dimension
                // (which would say 3 MiB and hand libxsmm a batch its kernel would not prefetch).
                auto ua = random_tensor(8, 1, items, 47), ub = random_tensor(1, 8, items, 48);
                auto uc = filled(8, 8, items, 0.0);
                auto outer = tfbench::ops::batched_gemm_into(s, ua, ub, uc);
                REQUIRE(outer.has_value());
                CHECK(outer->provider == ItemProvider::Specialized);
                CHECK(gemm_error(ua.view(), ub.view(), uc.view(), none, 1.0, 0.0) <= 1e-12);
              })
              .has_value());
}

TEST_CASE(
    "batched_gemm: streaming stores of C are a per-operation choice, reported where the items allow them",
    "[batched][facade]") {
  namespace batched = tfbench::impl::batched;
#if defined(TFBENCH_IMPL_STREAM_STORES)
  constexpr bool specialized_streams = true;  // packed items of whole 32-byte vectors
#else
  constexpr bool specialized_streams = false;  // no AVX in this build (or a device compiler)
#endif
  // C at 64-byte aligned addresses: libxsmm's streaming kernel stores whole aligned lines.
  auto aligned_c = [](Index n, Index items) { return tfbench::testing::aligned_items(n, items, -1.0); };
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                for (ItemProvider provider : {ItemProvider::Specialized, ItemProvider::Libxsmm}) {
                  if (provider == ItemProvider::Libxsmm && !batched::libxsmm_compiled()) continue;
                  for (Index n : {4, 8, 16}) {
                    const Index items = 96;
                    auto a = random_tensor(n, n, items, 70 + n), b = random_tensor(n, n, items, 80 + n);
                    const std::vector<double> unused(std::size_t(n * n * items), 0.0);
                    // libxsmm stores whole 64-byte lines: not the columns of 4 x 4 f64 items (32 bytes).
                    const bool allowed = provider == ItemProvider::Specialized ? specialized_streams
                                                                               : n * sizeof(double) % 64 == 0;
                    std::vector<BatchStrategy> strategies{BatchStrategy::Sequential};
                    if (s.context().can_fan_out()) strategies.push_back(BatchStrategy::OuterParallel);
                    for (BatchStrategy strategy : strategies)
                      for (bool stream : {true, false}) {
                        CAPTURE(tfbench::ops::name(provider), n, tfbench::name(strategy), stream);
                        BatchedOptions o;
                        o.provider = provider;
                        o.policy = BatchPolicy{strategy, tfbench::BatchThresholds{}, nullptr};
                        o.streaming_stores = stream;
                        auto c = aligned_c(n, items);
                        auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, o);
                        REQUIRE(ran.has_value());
                        CHECK(gemm_error(a.view(), b.view(), c.view(), unused, 1.0, 0.0) <= 1e-12);
                        CHECK(ran->streaming_stores == std::optional<bool>(stream && allowed));
                        const std::string described = tfbench::ops::describe(*ran);
                        CHECK((described.find("+nt-stores") != std::string::npos) == (stream && allowed));
                      }
                  }
                }
                // beta = 1 reads C: regular stores whatever the option says.
                auto a = random_tensor(8, 8, 64, 91), b = random_tensor(8, 8, 64, 92);
                auto c = aligned_c(8, 64);
                const std::vector<double> before(c.data(), c.data() + 8 * 8 * 64);
                BatchedOptions o;
                o.provider = ItemProvider::Specialized;
                o.streaming_stores = true;
                auto accumulated = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 1.0, o);
                REQUIRE(accumulated.has_value());
                CHECK(accumulated->streaming_stores == std::optional<bool>(false));
                CHECK(gemm_error(a.view(), b.view(), c.view(), before, 1.0, 1.0) <= 1e-12);
                // A solve writes no GEMM output: nothing to report.
                auto x = aligned_c(8, 64);
                auto rhs = random_tensor(8, 8, 64, 93);
                auto solved = tfbench::ops::batched_solve_into(s, a, rhs, x, BatchedOptions{});
                REQUIRE(solved.has_value());
                CHECK_FALSE(solved->streaming_stores.has_value());
                // The built-in rule: a batch in the caches keeps regular stores.
                auto cached = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0);
                REQUIRE(cached.has_value());
                CHECK(cached->streaming_stores == std::optional<bool>(false));
              })
              .has_value());
}

TEST_CASE(
    "batched_gemm: the specialized kernel's width is a per-operation choice where the items have two, "
    "each width equal to the reference and reported",
    "[batched][facade]") {
  namespace batched = tfbench::impl::batched;
  using tfbench::DType;
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
  CHECK(tfbench::ops::has_two_kernel_widths(DType::F64, 2));
  CHECK(tfbench::ops::has_two_kernel_widths(DType::F64, 4));
  CHECK(tfbench::ops::has_two_kernel_widths(DType::F64, 8));
#endif
  CHECK_FALSE(tfbench::ops::has_two_kernel_widths(DType::F64, 3));
  CHECK_FALSE(tfbench::ops::has_two_kernel_widths(DType::F64, 16));
  CHECK_FALSE(tfbench::ops::has_two_kernel_widths(DType::F32, 4));
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                std::vector<BatchStrategy> strategies{BatchStrategy::Sequential};
                if (s.context().can_fan_out()) strategies.push_back(BatchStrategy::OuterParallel);
                for (Index n : {2, 3, 4, 8}) {
                  const bool two = tfbench::ops::has_two_kernel_widths(DType::F64, int(n));
                  const Index items = 37;  // odd: the 512-bit 2 x 2 kernel's last item alone
                  auto a = random_tensor(n, n, items, 110 + n), b = random_tensor(n, n, items, 120 + n);
                  for (BatchStrategy strategy : strategies)
                    for (double beta : {0.0, 0.5})
                      // Unset, then each width, one after the other in one session: the route memo
                      // must tell the calls apart.
                      for (std::optional<bool> narrow :
                           {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false),
                            std::optional<bool>(true)}) {
                        CAPTURE(n, tfbench::name(strategy), beta, narrow.has_value(), narrow.value_or(false));
                        auto c = random_tensor(n, n, items, 130 + n);
                        const std::vector<double> before(c.data(), c.data() + n * n * items);
                        BatchedOptions o;
                        o.provider = ItemProvider::Specialized;
                        o.policy = BatchPolicy{strategy, tfbench::BatchThresholds{}, nullptr};
                        o.narrow_vectors = narrow;
                        auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, -0.75, beta, o);
                        REQUIRE(ran.has_value());
                        CHECK(gemm_error(a.view(), b.view(), c.view(), before, -0.75, beta) <= 1e-12);
                        CHECK(ran->narrow_vectors ==
                              (two ? std::optional<bool>(narrow.value_or(false)) : std::optional<bool>()));
                        const bool says = tfbench::ops::describe(*ran).find("+256-bit") != std::string::npos;
                        CHECK(says == (two && narrow.value_or(false)));
                      }
                }
#if defined(TFBENCH_IMPL_STREAM_STORES)
                // Streamed C: each item through the chosen width's kernel into a tile.
                for (Index n : {2, 4, 8}) {
                  CAPTURE(n);
                  auto a = random_tensor(n, n, 64, 141), b = random_tensor(n, n, 64, 142);
                  auto c = tfbench::testing::aligned_items(n, 64, -1.0);
                  BatchedOptions o;
                  o.provider = ItemProvider::Specialized;
                  o.streaming_stores = true;
                  o.narrow_vectors = true;
                  auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, o);
                  REQUIRE(ran.has_value());
                  CHECK(ran->streaming_stores == std::optional<bool>(true));
                  const std::vector<double> unused(std::size_t(n * n * 64), 0.0);
                  CHECK(gemm_error(a.view(), b.view(), c.view(), unused, 1.0, 0.0) <= 1e-12);
                }
#endif
                // A solve has one width of kernel: nothing to report.
                auto a = random_tensor(4, 4, 16, 143), rhs = random_tensor(4, 1, 16, 144);
                auto x = random_tensor(4, 1, 16, 145);
                BatchedOptions o;
                o.narrow_vectors = true;
                auto solved = tfbench::ops::batched_solve_into(s, a, rhs, x, o);
                REQUIRE(solved.has_value());
                CHECK_FALSE(solved->narrow_vectors.has_value());
              })
              .has_value());
#if defined(TFBENCH_IMPL_COLUMNS_8X8_AVX512) && defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
  // The width reaches the kernel: the two 8 x 8 kernels sum columns 6 and 7 in different orders, so C
  // tells, bit for bit, which one ran.
  REQUIRE(backend
              .with_session([&](Session& s) {
                const Index items = 5;
                auto a = random_tensor(8, 8, items, 151), b = random_tensor(8, 8, items, 152);
                std::vector<double> wide(std::size_t(64 * items)), narrow(wide.size());
                batched::gemm_8x8_f64_columns<true>(1.0, a.data(), b.data(), 0.0, wide.data(), 0, items);
                for (Index i = 0; i < items; ++i)
                  batched::gemm_small_f64_avx2_item<8, true>(1.0, a.data() + 64 * i, b.data() + 64 * i, 0.0,
                                                             narrow.data() + 64 * i);
                REQUIRE(wide != narrow);
                for (bool chosen : {true, false}) {
                  CAPTURE(chosen);
                  auto c = random_tensor(8, 8, items, 153);
                  BatchedOptions o;
                  o.provider = ItemProvider::Specialized;
                  o.policy = BatchPolicy{BatchStrategy::Sequential, tfbench::BatchThresholds{}, nullptr};
                  o.narrow_vectors = chosen;
                  REQUIRE(tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, o).has_value());
                  CHECK(std::vector<double>(c.data(), c.data() + 64 * items) == (chosen ? narrow : wide));
                }
              })
              .has_value());
#endif
  // The chunk runs what the route chose: the 256-bit kernel where asked or where it is the only one.
  double x[16] = {};
  const batched::GemmBatch<double> g{batched::ItemBatch<const double>{x, 4, 4, 1, 1, 4, 16},
                                     batched::ItemBatch<const double>{x, 4, 4, 1, 1, 4, 16},
                                     batched::ItemBatch<double>{x, 4, 4, 1, 1, 4, 16}, 1.0, 0.0};
  using Chunk4 = batched::FixedGemmChunk<double, 4, 4, 4, batched::ItemLayout::Packed, true>;
#if defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
  CHECK(Chunk4{g, false, true}.runs_256bit());
  CHECK(Chunk4{g, false, false}.runs_256bit() == !batched::has_two_widths(4));
#else
  CHECK_FALSE(Chunk4{g, false, true}.runs_256bit());
#endif
}

TEST_CASE(
    "batched_gemm: libxsmm's prefetching route runs items of four 8-column blocks or more block by "
    "block, each item equal to the reference",
    "[batched][facade]") {
  namespace batched = tfbench::impl::batched;
  if (!batched::libxsmm_compiled()) return;
  // Which items go in blocks: 32 and 40 columns (4 and 5 blocks), not 16 (2) nor 36 (not whole blocks).
  const auto in_blocks = [](int cols) {
    const batched::ItemBatch<const double> a{nullptr, 32, 32, 8, 1, 32, 32 * 32};
    const batched::ItemBatch<const double> b{nullptr, 32, cols, 8, 1, 32, 32 * cols};
    const batched::ItemBatch<double> c{nullptr, 32, cols, 8, 1, 32, 32 * cols};
    return batched::xsmm_prefetch_in_blocks(batched::GemmBatch<double>{a, b, c, 1.0, 0.0});
  };
  CHECK(in_blocks(32));
  CHECK(in_blocks(40));
  CHECK_FALSE(in_blocks(16));
  CHECK_FALSE(in_blocks(36));
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                struct Shape {
                  Index m, n, k;
                };
                const Index items = 37;
                std::vector<BatchStrategy> strategies{BatchStrategy::Sequential};
                if (s.context().can_fan_out()) strategies.push_back(BatchStrategy::OuterParallel);
                for (const Shape sh : {Shape{32, 32, 32}, Shape{24, 40, 20}, Shape{16, 16, 16}}) {
                  // Every operand padded: each item a window of a larger block, so that a block's B and C
                  // columns and the next item's A are found by the strides, not by the item's size.
                  auto a_store = random_tensor(sh.m + 3, sh.k + 1, items, 101);
                  auto b_store = random_tensor(sh.k + 2, sh.n, items, 102);
                  auto c_store = random_tensor(sh.m + 8, sh.n, items, 103);
                  const std::array<Index, 3> a_shape{sh.m, sh.k, items}, b_shape{sh.k, sh.n, items},
                      c_shape{sh.m, sh.n, items};
                  const std::array<Index, 3> a_strides{1, sh.m + 3, (sh.m + 3) * (sh.k + 1)},
                      b_strides{1, sh.k + 2, (sh.k + 2) * sh.n}, c_strides{1, sh.m + 8, (sh.m + 8) * sh.n};
                  const auto a = a_store.strided_view(a_shape, a_strides);
                  const auto b = b_store.strided_view(b_shape, b_strides);
                  auto c = c_store.strided_view_mut(c_shape, c_strides);
                  for (BatchStrategy strategy : strategies)
                    for (double beta : {0.0, 1.0}) {
                      CAPTURE(sh.m, sh.n, sh.k, tfbench::name(strategy), beta);
                      std::vector<double> before(std::size_t(sh.m * sh.n * items));
                      for (Index it = 0; it < items; ++it)
                        for (Index j = 0; j < sh.n; ++j)
                          for (Index i = 0; i < sh.m; ++i)
                            before[std::size_t(i + sh.m * (j + sh.n * it))] = c(i, j, it);
                      BatchedOptions o;
                      o.provider = ItemProvider::Libxsmm;
                      o.policy = BatchPolicy{strategy, tfbench::BatchThresholds{}, nullptr};
                      o.prefetch = true;
                      const auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, beta, o);
                      REQUIRE(ran.has_value());
                      CHECK(ran->prefetch == std::optional<bool>(true));
                      CHECK(gemm_error(a, b, c, before, 1.0, beta) <= 1e-12);
                    }
                }
                // Packed 32 x 32 items with C streamed (aligned whole lines): the blocks store C too.
                auto a = random_tensor(32, 32, items, 104), b = random_tensor(32, 32, items, 105);
                auto c = tfbench::testing::aligned_items(32, items, -1.0);
                BatchedOptions o;
                o.provider = ItemProvider::Libxsmm;
                o.prefetch = true;
                o.streaming_stores = true;
                const auto streamed = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, o);
                REQUIRE(streamed.has_value());
                CHECK(streamed->streaming_stores == std::optional<bool>(true));
                const std::vector<double> unused(std::size_t(32 * 32 * items), 0.0);
                CHECK(gemm_error(a.view(), b.view(), c.view(), unused, 1.0, 0.0) <= 1e-12);
              })
              .has_value());
}

TEST_CASE("batched_solve_into: Auto's fan-out is checked too, and a withheld call solves every item",
          "[batched][facade][fan-out-check]") {
  in_fan_out_session([&](Session& s) {
    const Index n = 2, batch = 64, nrhs = 1;  // far less work than a fork and join
    auto a = solve_matrices(n, batch, true, 71);
    auto b = random_tensor(n, nrhs, batch, 72);
    const auto av = a.view();
    const auto bv = b.view();
    BatchPolicy cheap_lanes;
    cheap_lanes.thresholds.lane_min_work_ns = 0;
    tfbench::impl::batched::FanOutCheck::reset_thread();
    int withheld = 0;
    for (int call = 0; call < 100; ++call) {
      auto x = filled(n, nrhs, batch, 0.0);
      auto xw = x.view_mut();
      const auto r = tfbench::ops::batched_solve_into(s, av, bv, xw, {cheap_lanes, {}, {}});
      REQUIRE(r.has_value());
      CHECK(r->strategy == BatchStrategy::OuterParallel);
      REQUIRE(r->fan_out_withheld.has_value());
      withheld += *r->fan_out_withheld ? 1 : 0;
      CHECK(residual(av, x.view(), bv) <= 1e-12);
    }
    CHECK(withheld >= 50);
  });
}

TEST_CASE("batched_solve_into: every strategy and provider solves; pivoting contract; singular items",
          "[batched][facade]") {
  auto backend = backend_for_test();
  REQUIRE(
      backend
          .with_session([&](Session& s) {
            for (Index n : {2, 5, 8, 32, 35}) {
              const Index batch = 11, nrhs = 3;
              for (bool permuted : {false, true}) {
                auto a = solve_matrices(n, batch, permuted, 40 + n);
                auto b = random_tensor(n, nrhs, batch, 50 + n);
                const auto av = a.view();
                const auto bv = b.view();
                for (BatchStrategy st : {BatchStrategy::Auto, BatchStrategy::Sequential,
                                         BatchStrategy::OuterParallel, BatchStrategy::ProviderItems}) {
                  for (auto piv : {tfbench::ops::Pivoting::Partial, tfbench::ops::Pivoting::None}) {
                    if (permuted && piv == tfbench::ops::Pivoting::None) continue;
                    auto x = filled(n, nrhs, batch, 0.0);
                    auto xw = x.view_mut();
                    const auto r =
                        tfbench::ops::batched_solve_into(s, av, bv, xw, {BatchPolicy{st, {}}, {}, piv});
                    INFO("n " << n << " " << tfbench::name(st) << " permuted " << permuted);
                    if (st == BatchStrategy::OuterParallel && !s.context().can_fan_out()) {
                      REQUIRE_FALSE(r.has_value());
                      continue;
                    }
                    REQUIRE(r.has_value());
                    if (st == BatchStrategy::ProviderItems) CHECK(r->provider == ItemProvider::Blas);
                    if (r->strategy == BatchStrategy::OuterParallel) {
                      check_first_lane_items(r.value());
                    } else {
                      CHECK_FALSE(r->first_lane_items.has_value());
                    }
                    CHECK(residual(av, x.view(), bv) <= 1e-10);
                  }
                }
                // kokkosbatched forced: only with Pivoting::None.
                auto x = filled(n, nrhs, batch, 12345.0);
                auto xw = x.view_mut();
                const auto refused =
                    tfbench::ops::batched_solve_into(s, av, bv, xw, {{}, ItemProvider::KokkosBatched, {}});
                REQUIRE_FALSE(refused.has_value());
                CHECK(refused.error().code == BatchedErrc::Unsupported);
                CHECK(all_equal(x, 12345.0));
                if (!permuted) {
                  const auto kb = tfbench::ops::batched_solve_into(
                      s, av, bv, xw, {{}, ItemProvider::KokkosBatched, tfbench::ops::Pivoting::None});
                  REQUIRE(kb.has_value());
                  CHECK(kb->provider == ItemProvider::KokkosBatched);
                  CHECK(residual(av, x.view(), bv) <= 1e-10);
                }
              }
            }
            // In place (X is B) and allocating.
            auto a = solve_matrices(6, 4, true, 60);
            auto b = random_tensor(6, 2, 4, 61);
            const auto av = a.view();
            const auto bv = b.view();
            auto out = tfbench::ops::batched_solve(s, av, bv);
            REQUIRE(out.has_value());
            CHECK(residual(av, out->tensor.view(), bv) <= 1e-10);
            auto inplace = random_tensor(6, 2, 4, 61);
            auto iw = inplace.view_mut();
            const auto ir = inplace.view();
            REQUIRE(tfbench::ops::batched_solve_into(s, av, ir, iw).has_value());
            CHECK(residual(av, inplace.view(), bv) <= 1e-10);
            // Singular items: typed error naming the lowest one; the others are solved.
            auto sing = solve_matrices(4, 6, false, 62);
            for (Index it : {2, 4})
              for (Index i = 0; i < 4; ++i) sing.at(i, 1, it) = 0.0;
            const auto sv = sing.view();
            auto rhs = random_tensor(4, 1, 6, 63);
            const auto rv = rhs.view();
            for (BatchStrategy st : {BatchStrategy::Sequential, BatchStrategy::ProviderItems}) {
              auto xs = filled(4, 1, 6, 0.0);
              auto xsw = xs.view_mut();
              const auto r = tfbench::ops::batched_solve_into(s, sv, rv, xsw, {BatchPolicy{st, {}}, {}, {}});
              REQUIRE_FALSE(r.has_value());
              CHECK(r.error().code == BatchedErrc::Singular);
              CHECK(r.error().singular_item == 2);
              CHECK(r.error().singular_items == 2);
              for (Index it : {0, 1, 3, 5}) {
                double worst = 0;
                for (Index i = 0; i < 4; ++i) {
                  double acc = 0;
                  for (Index p = 0; p < 4; ++p) acc += sing.at(i, p, it) * xs.at(p, 0, it);
                  worst = std::max(worst, std::abs(acc - rhs.at(i, 0, it)));
                }
                CHECK(worst <= 1e-10);
              }
            }
          })
          .has_value());
}

TEST_CASE("gemm: KokkosBlas::gemm for col-major, padded, row-major and general strides; sequential in a lane",
          "[batched][facade][gemm]") {
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                using M2 = Tensor<double, Rank<2>, Host>;
                const Index m = 37, k = 29, n = 23;
                auto a_store = M2::from_col_major({2 * m, 2 * k}, random_values(std::size_t(4 * m * k), 71));
                auto b_store = M2::from_col_major({n, k}, random_values(std::size_t(n * k), 72));
                const std::array<Index, 2> ash{m, k}, ast{2, 4 * m};  // every other row and column: general
                const auto a = a_store.strided_view(ash, ast);
                const std::array<Index, 2> perm{1, 0};
                const auto b = b_store.view().permute(perm);  // row-major [k, n]
                auto c_store = M2::from_col_major({m + 3, n}, random_values(std::size_t((m + 3) * n), 73));
                const std::array<Index, 2> csh{m, n}, cst{1, m + 3};  // padded leading dimension
                auto c = c_store.strided_view_mut(csh, cst);
                std::vector<double> c0(std::size_t(m * n));
                for (Index j = 0; j < n; ++j)
                  for (Index i = 0; i < m; ++i) c0[std::size_t(i + m * j)] = c(i, j);
                const auto r = tfbench::ops::gemm_into(s, a, b, c, 1.5, -0.5);
                REQUIRE(r.has_value());
                CHECK(r->provider == ItemProvider::Blas);
                double diff = 0, scale = 0;
                for (Index j = 0; j < n; ++j)
                  for (Index i = 0; i < m; ++i) {
                    double acc = 0;
                    for (Index p = 0; p < k; ++p) acc += a(i, p) * b(p, j);
                    const double ref = 1.5 * acc - 0.5 * c0[std::size_t(i + m * j)];
                    diff = std::max(diff, std::abs(c(i, j) - ref));
                    scale = std::max(scale, std::abs(ref));
                  }
                CHECK(diff / scale <= 1e-12);
                // Allocating, and inside a lane (OpenBLAS is rejected there: tfbench's sequential kernel).
                auto sq = M2::from_col_major({8, 8}, random_values(64, 74));
                auto out = tfbench::ops::gemm(s, sq, sq);
                REQUIRE(out.has_value());
                std::optional<tfbench::ops::BatchRun> lane_run;
                std::vector<double> lane_values;
                auto lanes = tfbench::with_outer_lanes(s, {&tfbench::ops::providers::specialized},
                                                       [&](tfbench::OuterLane& lane) {
                                                         if (lane.index() != 0) return;
                                                         auto r2 = tfbench::ops::gemm(lane.session(), sq, sq);
                                                         if (!r2) return;
                                                         lane_run = r2->run;
                                                         const auto vals = r2->tensor.as_slice();
                                                         lane_values.assign(vals.begin(), vals.end());
                                                       });
                REQUIRE(lanes.has_value());
                REQUIRE(lane_run.has_value());
                CHECK(lane_run->provider == ItemProvider::Specialized);
                REQUIRE(lane_values.size() == 64);
                for (std::size_t i = 0; i < 64; ++i)
                  CHECK(std::abs(lane_values[i] - out->tensor.as_slice()[i]) < 1e-13);
                // Shape error leaves C untouched.
                auto c2 = M2::from_col_major({8, 7}, std::vector<double>(56, 9.0));
                auto c2w = c2.view_mut();
                const auto sqv = sq.view();
                const auto bad = tfbench::ops::gemm_into(s, sqv, sqv, c2w);
                REQUIRE_FALSE(bad.has_value());
                CHECK(bad.error().code == BatchedErrc::ShapeMismatch);
                for (double x : c2.as_slice()) CHECK(x == 9.0);
                // A complex alpha or beta for a real dtype names the scalar and leaves C untouched.
                auto c3 = M2::from_col_major({8, 8}, std::vector<double>(64, 9.0));
                auto c3w = c3.view_mut();
                const auto complex_alpha = tfbench::ops::gemm_into(s, sqv, sqv, c3w, {1, 1});
                REQUIRE_FALSE(complex_alpha.has_value());
                CHECK(complex_alpha.error().code == BatchedErrc::InvalidScalar);
                CHECK(complex_alpha.error().message == "alpha has an imaginary part for a real dtype");
                const auto complex_beta = tfbench::ops::gemm_into(s, sqv, sqv, c3w, 1.0, {0.5, -1});
                REQUIRE_FALSE(complex_beta.has_value());
                CHECK(complex_beta.error().message == "beta has an imaginary part for a real dtype");
                for (double x : c3.as_slice()) CHECK(x == 9.0);
              })
              .has_value());
}

TEST_CASE("gemm: the session's Gemm providers and effective batch policy decide the route",
          "[batched][facade][gemm]") {
  using M2 = Tensor<double, Rank<2>, Host>;
  auto a = M2::from_col_major({24, 16}, random_values(24 * 16, 81));
  auto b = M2::from_col_major({16, 20}, random_values(16 * 20, 82));
  std::vector<double> reference;
  const auto av = a.view();
  const auto bv = b.view();
  auto run_gemm = [&](Session& s) {
    auto c = M2::from_col_major({24, 20}, std::vector<double>(24 * 20, 7.0));
    auto cw = c.view_mut();
    auto r = tfbench::ops::gemm_into(s, av, bv, cw);
    if (r && reference.empty()) reference.assign(c.as_slice().begin(), c.as_slice().end());
    if (r) {
      for (std::size_t i = 0; i < reference.size(); ++i)
        CHECK(std::abs(c.as_slice()[i] - reference[i]) < 1e-12);
    } else {
      for (double x : c.as_slice()) CHECK(x == 7.0);  // a route error leaves C untouched
    }
    return r;
  };
  auto backend = backend_for_test();
  // Default: the BLAS under Auto.
  auto blas = backend.with_session(run_gemm).value();
  REQUIRE(blas.has_value());
  CHECK(blas->provider == ItemProvider::Blas);
  // A scoped Sequential policy: tfbench's sequential kernel, not the BLAS with its own threads.
  auto sequential =
      backend
          .with_session([&](Session& s) {
            return tfbench::with_batch_policy(s, BatchPolicy{BatchStrategy::Sequential, {}},
                                              [&](Session& scoped) { return run_gemm(scoped); });
          })
          .value();
  REQUIRE(sequential.has_value());
  CHECK(sequential->strategy == BatchStrategy::Sequential);
  CHECK(sequential->provider == ItemProvider::Specialized);
  // A forced strategy with no route on host: the typed route error, C untouched.
  auto vendor = backend
                    .with_session([&](Session& s) {
                      return tfbench::with_batch_policy(s, BatchPolicy{BatchStrategy::WholeBatchVendor, {}},
                                                        [&](Session& scoped) { return run_gemm(scoped); });
                    })
                    .value();
  REQUIRE_FALSE(vendor.has_value());
  CHECK(vendor.error().code == BatchedErrc::NoRoute);
  // The backend's Gemm slot without the BLAS: the sequential kernel even under Auto.
  REQUIRE(backend.set_providers(tfbench::ProviderSlot::Gemm, {}).has_value());
  auto without_blas = backend.with_session(run_gemm).value();
  REQUIRE(without_blas.has_value());
  CHECK(without_blas->provider == ItemProvider::Specialized);
  REQUIRE(backend.set_providers(tfbench::ProviderSlot::Gemm, {&tfbench::providers::openblas}).has_value());
  auto with_blas = backend.with_session(run_gemm).value();
  REQUIRE(with_blas.has_value());
  CHECK(with_blas->provider == ItemProvider::Blas);
}

TEST_CASE("batched operations on the device backend's memory", "[batched][facade][device]") {
  auto backend = tfbench::DeviceBackend::make();
  auto host_a = random_tensor(4, 4, 16, 81), host_b = random_tensor(4, 4, 16, 82);
  auto a = tfbench::upload(host_a);
  auto b = tfbench::upload(host_b);
  auto result = backend.with_session([&](Session& s) {
    auto out = tfbench::ops::batched_gemm(s, a, b);
    REQUIRE(out.has_value());
    return tfbench::download(out->tensor);
  });
  REQUIRE(result.has_value());
  std::vector<double> none(4 * 4 * 16, 0.0);
  CHECK(gemm_error(host_a.view(), host_b.view(), result->view(), none, 1.0, 0.0) <= 1e-12);
}
