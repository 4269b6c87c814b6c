// Prepared einsums: replay equals eager, no re-preparation for fresh data of the same key, and
// re-preparation on each changed key part (dtype, shape, strides, destination layout, provider
// generation, device/context, batch policy); plans shared through the backend's plan cache.

#include "ops_test_support.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;

template <class T>
bool same_values(const Tensor<T, DynRank, Host>& x, const Tensor<T, DynRank, Host>& y) {
  if (shape_vec(x.shape()) != shape_vec(y.shape())) return false;
  for (Index i = 0; i < x.numel(); ++i)
    if (!(x.data()[i] == y.data()[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("prepared einsum replays fresh data and re-prepares on each changed key part", "[ops][prepared]") {
  std::mt19937_64 rng(37);
  auto backend = ops_backend();
  const char* spec = "ik,kj->ij";
  auto a = random_operand<double>(rng, {24, 20});
  auto b = random_operand<double>(rng, {20, 28});
  in_session(backend, [&](Session& s) {
    auto p = ops::prepare_einsum(s, spec, a.view(), b.view());
    CHECK(p.preparations() == 1);
    // Fresh data, same layouts: replay, equal to eager, no re-preparation.
    for (int rep = 0; rep < 3; ++rep) {
      auto a2 = random_operand<double>(rng, {24, 20});
      auto b2 = random_operand<double>(rng, {20, 28});
      auto replay = p.run(s, a2.view(), b2.view());
      auto eager = ops::einsum(s, spec, a2.view(), b2.view());
      CHECK(same_values(replay, eager));
    }
    CHECK(p.preparations() == 1);
    std::uint64_t expected = 1;
    auto replay_matches = [&](auto&& x, auto&& y) {
      auto replay = p.run(s, x, y);
      auto eager = ops::einsum(s, spec, x, y);
      CHECK(same_values(replay, eager));
      CHECK(p.preparations() == ++expected);
      // The same key again: no further preparation.
      p.run(s, x, y);
      CHECK(p.preparations() == expected);
    };
    SECTION("shape") {
      auto a3 = random_operand<double>(rng, {25, 20});
      replay_matches(a3.view(), b.view());
    }
    SECTION("strides") {
      auto a3 = random_operand<double>(rng, {24, 20}, {1, 0});
      replay_matches(a3.view(), b.view());
      auto a4 = random_operand<double>(rng, {24, 20}, {0, 1}, 4);
      replay_matches(a4.view(), b.view());
    }
    SECTION("dtype") {
      auto af = random_operand<float>(rng, {24, 20});
      auto bf = random_operand<float>(rng, {20, 28});
      auto replay = p.run(s, af.view(), bf.view());
      CHECK(same_values(replay, ops::einsum(s, spec, af.view(), bf.view())));
      CHECK(p.preparations() == 2);
      CHECK(p.dtype() == DType::F32);
    }
    SECTION("destination layout") {
      auto dest = random_operand<double>(rng, {24, 28}, {1, 0});
      auto dv = dest.view_mut();
      p.run_into(s, dv, a.view(), b.view());
      CHECK(p.preparations() == 2);
      auto eager = ops::einsum(s, spec, a.view(), b.view());
      for_each_index({24, 28},
                     [&](const std::vector<index_t>& i) { CHECK(dest.at(i) == element(eager, i)); });
      auto dv2 = dest.view_mut();
      p.run_into(s, dv2, a.view(), b.view());
      CHECK(p.preparations() == 2);
    }
    SECTION("batch policy") {
      with_batch_policy(s, BatchPolicy{BatchStrategy::Sequential, {}}, [&](Session& scoped) {
        auto replay = p.run(scoped, a.view(), b.view());
        CHECK(p.preparations() == 2);
        CHECK(same_values(replay, ops::einsum(scoped, spec, a.view(), b.view())));
      });
      p.run(s, a.view(), b.view());  // the scope ended: the backend default again
      CHECK(p.preparations() == 3);
    }
  });
}

TEST_CASE("prepared einsum re-prepares for a new provider generation and another context",
          "[ops][prepared]") {
  std::mt19937_64 rng(41);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {24, 20});
  auto b = random_operand<double>(rng, {20, 28});
  std::optional<ops::PreparedEinsum> p;
  std::optional<Tensor<double, DynRank, Host>> first_result;
  in_session(backend, [&](Session& s) {
    p.emplace(ops::prepare_einsum(s, "ik,kj->ij", a.view(), b.view()));
    first_result.emplace(p->run(s, a.view(), b.view()));
  });
  const auto& first = *first_result;
  // A provider change (taken outside any session) gives a new generation.
  REQUIRE(
      backend.set_providers(ProviderSlot::Contraction, {&providers::openblas, &providers::kokkos_same_pool}));
  in_session(backend, [&](Session& s) {
    auto again = p->run(s, a.view(), b.view());
    CHECK(p->preparations() == 2);
    CHECK(same_values(again, first));
  });
  // Another backend: another context (and another plan cache).
  CpuBackendConfig serial;
  serial.space = ExecSpaceKind::Serial;
  serial.threads = 1;
  auto other = CpuBackend::create(serial).value();
  const auto before = other.plan_cache().stats();
  auto r = other.with_session([&](Session& s) {
    auto again = p->run(s, a.view(), b.view());
    CHECK(same_values(again, first));
  });
  REQUIRE(r);
  CHECK(p->preparations() == 3);  // another backend: its own provider generation, context and cache
  CHECK(other.plan_cache().stats().misses >= before.misses);
}

TEST_CASE("prepared plans live in the plan cache: hits for a repeated key, misses for fresh keys",
          "[ops][prepared]") {
  std::mt19937_64 rng(43);
  auto backend = ops_backend();
  backend.plan_cache().clear();
  const auto base = backend.plan_cache().stats();
  in_session(backend, [&](Session& s) {
    for (int i = 0; i < 4; ++i) {  // fixed key
      auto a = random_operand<double>(rng, {16, 12});
      auto b = random_operand<double>(rng, {12, 10});
      auto c = ops::einsum_cached(s, "ik,kj->ij", a.view(), b.view());
      CHECK(c.numel() == 160);
    }
    for (index_t n = 5; n < 9; ++n) {  // fresh keys
      auto a = random_operand<double>(rng, {n, 12});
      auto b = random_operand<double>(rng, {12, 10});
      ops::einsum_cached(s, "ik,kj->ij", a.view(), b.view());
    }
  });
  const auto st = backend.plan_cache().stats();
  CHECK(st.misses - base.misses == 5);
  CHECK(st.hits - base.hits == 3);
}

TEST_CASE("contractions inside outer fan-out lanes avoid the independent-runtime BLAS", "[ops][prepared]") {
  std::mt19937_64 rng(47);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {40, 30});
  auto b = random_operand<double>(rng, {30, 20});
  in_session(backend, [&](Session& s) {
    auto eager = ops::einsum(s, "ik,kj->ij", a.view(), b.view());
    std::atomic<int> lanes_ok{0};
    auto ran = with_outer_lanes(s, {&providers::kokkos_same_pool}, [&](OuterLane& lane) {
      ops::reset_contraction_stats();
      auto c = ops::einsum(lane.session(), "ik,kj->ij", a.view(), b.view());
      bool same = true;
      for (Index i = 0; i < c.numel(); ++i) same &= std::fabs(c.data()[i] - eager.data()[i]) < 1e-12;
      if (same) ++lanes_ok;
    });
    REQUIRE(ran);
    CHECK(lanes_ok.load() >= 1);
  });
  // With only the independent runtime declared, a contraction in a lane is rejected before it runs.
  REQUIRE(backend.set_providers(ProviderSlot::Contraction, {&providers::openblas}));
  in_session(backend, [&](Session& s) {
    std::atomic<int> rejected{0};
    auto ran = with_outer_lanes(s, {&providers::kokkos_same_pool}, [&](OuterLane& lane) {
      try {
        ops::einsum(lane.session(), "ik,kj->ij", a.view(), b.view());
      } catch (const ops::OpError& e) {
        if (e.code() == ops::OpErrorCode::Unsupported) ++rejected;
      }
    });
    REQUIRE(ran);
    CHECK(rejected.load() >= 1);
  });
}
