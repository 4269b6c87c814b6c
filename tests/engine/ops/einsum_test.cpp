// Einsum and tensordot facades: results against the naive reference for binary and N-ary specs,
// every borrow/pack combination, strided destinations, and the observable routes.

#include "ops_test_support.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;
using C128 = Kokkos::complex<double>;

template <class T, class Result>
double error_vs_naive(const std::string& spec, const std::vector<const HostOperand<T>*>& ops,
                      const Result& r) {
  std::vector<StridedHost<T>> hosts;
  for (const auto* op : ops) {
    StridedHost<T> h;
    h.shape = op->shape;
    h.strides = op->strides;
    h.origin = op->origin;
    h.storage.assign(op->owner.data(), op->owner.data() + op->owner.numel());
    hosts.push_back(std::move(h));
  }
  std::vector<const StridedHost<T>*> ptrs;
  for (auto& h : hosts) ptrs.push_back(&h);
  std::vector<index_t> shape;
  const auto want = naive_einsum<T>(spec, ptrs, &shape);
  REQUIRE(shape_vec(r.shape()) == shape);
  std::vector<T> got(r.data(), r.data() + r.numel());
  return max_relative_error(got, want);
}

}  // namespace

TEMPLATE_TEST_CASE("binary einsum: every combination of needed and unneeded permutations", "[ops][einsum]",
                   double, float, C128) {
  using T = TestType;
  std::mt19937_64 rng(17);
  auto backend = ops_backend();
  // "abk,kc->abc" with a two-label row group: A as stored [a,b,k], [k,a,b] (transposed), [b,a,k]
  // (needs a permutation); B as [k,c], [c,k], padded [k,c] (a leading dimension: borrowed),
  // reversed [k,c] (negative stride: packed).
  struct Form {
    std::vector<int> order;
    index_t pad;
    bool flip;
    bool packed;
  };
  const Form a_forms[] = {
      {{0, 1, 2}, 0, false, false}, {{2, 0, 1}, 0, false, false}, {{1, 0, 2}, 0, false, true}};
  const Form b_forms[] = {{{0, 1}, 0, false, false},
                          {{1, 0}, 0, false, false},
                          {{0, 1}, 2, false, false},
                          {{0, 1}, 0, true, true}};
  for (const auto& fa : a_forms) {
    for (const auto& fb : b_forms) {
      auto a = random_operand<T>(rng, {9, 8, 30}, fa.order, fa.pad);
      auto b = random_operand<T>(rng, {30, 17}, fb.order, fb.pad, {fb.flip, false});
      in_session(backend, [&](Session& s) {
        ops::reset_contraction_stats();
        auto c = ops::einsum(s, "abk,kc->abc", a.view(), b.view());
        const auto st = ops::contraction_stats();
        CHECK(error_vs_naive<T>("abk,kc->abc", {&a, &b}, c) < Tolerance<T>::value);
        CHECK(st.gemm == 1);
        CHECK(st.packed_operands == static_cast<std::uint64_t>(int(fa.packed) + int(fb.packed)));
        CHECK(st.output_via_scratch == 0);
      });
    }
  }
}

TEMPLATE_TEST_CASE("einsum_into a strided destination and tensordot", "[ops][einsum]", double, C128) {
  using T = TestType;
  std::mt19937_64 rng(19);
  auto backend = ops_backend();
  auto a = random_operand<T>(rng, {20, 30});
  auto b = random_operand<T>(rng, {30, 25});
  in_session(backend, [&](Session& s) {
    for (const auto& form : std::vector<std::vector<int>>{{0, 1}, {1, 0}}) {
      auto dest = random_operand<T>(rng, {20, 25}, form, 3);
      auto dv = dest.view_mut();
      ops::einsum_into(s, dv, "ik,kj->ij", a.view(), b.view());
      std::vector<T> got, want;
      for_each_index({20, 25}, [&](const std::vector<index_t>& i) {
        T w(0);
        for (index_t k = 0; k < 30; ++k) w += a.at({i[0], k}) * b.at({k, i[1]});
        want.push_back(w);
        got.push_back(dest.at(i));
      });
      CHECK(max_relative_error(got, want) < Tolerance<T>::value);
    }
    auto t3 = random_operand<T>(rng, {4, 5, 6});
    auto t2 = random_operand<T>(rng, {6, 5, 7});
    auto td = ops::tensordot(s, t3.view(), t2.view(), {1, 2}, {1, 0});
    CHECK(error_vs_naive<T>("abc,cbd->ad", {&t3, &t2}, td) < Tolerance<T>::value);
    auto td2 = ops::tensordot(s, a.view(), b.view(), 1);
    CHECK(error_vs_naive<T>("ik,kj->ij", {&a, &b}, td2) < Tolerance<T>::value);
  });
}

TEST_CASE("all-batch contraction runs as an elementwise product", "[ops][einsum]") {
  std::mt19937_64 rng(23);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {50, 40, 3});
  auto b = random_operand<double>(rng, {40, 3, 50}, {1, 2, 0});
  in_session(backend, [&](Session& s) {
    ops::reset_contraction_stats();
    auto c = ops::einsum(s, "ijb,jbi->ijb", a.view(), b.view());
    const auto st = ops::contraction_stats();
    CHECK(st.all_batch == 1);
    CHECK(st.elementwise_product == 1);
    CHECK(st.gemm + st.batched_gemm + st.direct == 0);
    CHECK(st.packed_operands == 0);
    CHECK(error_vs_naive<double>("ijb,jbi->ijb", {&a, &b}, c) < 1e-12);
  });
}

TEMPLATE_TEST_CASE("N-ary einsum through the facade equals the naive evaluation", "[ops][einsum]", double,
                   float) {
  using T = TestType;
  std::mt19937_64 rng(29);
  auto backend = ops_backend();
  auto a = random_operand<T>(rng, {10, 12});
  auto b = random_operand<T>(rng, {12, 14, 3}, {2, 0, 1});
  auto c = random_operand<T>(rng, {14, 9});
  auto d = random_operand<T>(rng, {9, 3});
  in_session(backend, [&](Session& s) {
    auto r = ops::einsum(s, "ij,jkb,kl,lb->ib", a.view(), b.view(), c.view(), d.view());
    CHECK(error_vs_naive<T>("ij,jkb,kl,lb->ib", {&a, &b, &c, &d}, r) < Tolerance<T>::value);
    // The same through the erased, runtime-count entry.
    const auto av = a.view(), bv = b.view(), cv = c.view(), dv = d.view();
    const TensorRead reads[] = {av, bv, cv, dv};
    auto dynamic = ops::einsum_n<T>(s, "ij,jkb,kl,lb->ib", Span<const TensorRead>(reads, 4));
    auto host = std::move(dynamic).into_host().value();
    CHECK(error_vs_naive<T>("ij,jkb,kl,lb->ib", {&a, &b, &c, &d}, host) < Tolerance<T>::value);
  });
}

TEST_CASE("batch labels go through the batched GEMM under every batch strategy", "[ops][einsum]") {
  std::mt19937_64 rng(67);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {20, 16, 6});
  auto b = random_operand<double>(rng, {16, 18, 6}, {1, 0, 2}, 1);  // row-major, padded items
  in_session(backend, [&](Session& s) {
    ops::reset_contraction_stats();
    auto ref = ops::einsum(s, "ijb,jkb->ikb", a.view(), b.view());
    const auto st = ops::contraction_stats();
    CHECK(st.batched_gemm == 1);
    CHECK(st.gemm_calls == 1);
    CHECK(st.packed_operands == 0);
    CHECK(error_vs_naive<double>("ijb,jkb->ikb", {&a, &b}, ref) < 1e-12);
    for (BatchStrategy strategy :
         {BatchStrategy::Sequential, BatchStrategy::OuterParallel, BatchStrategy::ProviderItems}) {
      with_batch_policy(s, BatchPolicy{strategy, {}}, [&](Session& scoped) {
        INFO("strategy " << name(strategy));
        if (strategy == BatchStrategy::OuterParallel && !scoped.context().can_fan_out()) {
          // Forced fan-out in a one-thread context has no route: a typed error, not a fallback.
          CHECK_THROWS_AS(ops::einsum(scoped, "ijb,jkb->ikb", a.view(), b.view()), ops::OpError);
          return;
        }
        auto c = ops::einsum(scoped, "ijb,jkb->ikb", a.view(), b.view());
        CHECK(error_vs_naive<double>("ijb,jkb->ikb", {&a, &b}, c) < 1e-12);
      });
    }
    // A forced strategy without a route on this platform is a typed error, before any write.
    auto dest = Tensor<double, DynRank, Host>::zeros({20, 18, 6});
    with_batch_policy(s, BatchPolicy{BatchStrategy::WholeBatchVendor, {}}, [&](Session& scoped) {
      CHECK_THROWS_AS(ops::einsum_into(scoped, dest, "ijb,jkb->ikb", a.view(), b.view()), ops::OpError);
    });
    for (Index i = 0; i < dest.numel(); ++i) REQUIRE(dest.data()[i] == 0.0);
  });
}

TEST_CASE("the direct kernel's crossover: the policy's threshold, else the tuning's, else built in",
          "[ops][einsum]") {
  std::mt19937_64 rng(31);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {6, 6});
  auto b = random_operand<double>(rng, {6, 6});  // 216 multiply-adds: direct under the built-in 2048
  // The route of one eager einsum and of one prepared replay (planned under the policy in force).
  auto routes = [&](Session& s) {
    ops::reset_contraction_stats();
    auto c = ops::einsum(s, "ij,jk->ik", a.view(), b.view());
    CHECK(error_vs_naive<double>("ij,jk->ik", {&a, &b}, c) < 1e-12);
    const auto eager = ops::contraction_stats();
    ops::reset_contraction_stats();
    auto p = ops::prepare_einsum(s, "ij,jk->ik", a.view(), b.view());
    auto replay = p.run(s, a.view(), b.view());
    CHECK(error_vs_naive<double>("ij,jk->ik", {&a, &b}, replay) < 1e-12);
    const auto prepared = ops::contraction_stats();
    auto name = [](const ops::ContractionStats& st) {
      return st.direct == 1 && st.gemm == 0 ? "direct" : st.gemm == 1 && st.direct == 0 ? "gemm" : "other";
    };
    return std::string(name(eager)) + "/" + name(prepared);
  };
  in_session(backend, [&](Session& s) {
    CHECK(routes(s) == "direct/direct");
    BatchPolicy below = s.backend_batch_policy();
    below.thresholds.direct_contraction_muladds = 100;
    with_batch_policy(s, below, [&](Session& in) { CHECK(routes(in) == "gemm/gemm"); });
    auto tuning = std::make_shared<ops::AutoTuning>("crossover test", ops::CacheSizes{});
    tuning->set_direct_contraction(1, 100);
    BatchPolicy tuned = s.backend_batch_policy();
    tuned.tuning = tuning;
    with_batch_policy(s, tuned, [&](Session& in) { CHECK(routes(in) == "gemm/gemm"); });
    tuned.thresholds.direct_contraction_muladds = 4096;  // an explicit threshold overrides the tuning
    with_batch_policy(s, tuned, [&](Session& in) { CHECK(routes(in) == "direct/direct"); });
  });
}

TEST_CASE("AutoTuning's crossover: the largest measured thread count not above the session's",
          "[ops][einsum]") {
  ops::AutoTuning t("crossover", ops::CacheSizes{});
  CHECK_FALSE(t.direct_contraction_muladds(1).has_value());
  t.set_direct_contraction(2, 500);
  t.set_direct_contraction(1, 300);
  CHECK(*t.direct_contraction_muladds(1) == 300);
  CHECK(*t.direct_contraction_muladds(8) == 500);
  t.set_direct_contraction(2, 700);  // replaces
  CHECK(*t.direct_contraction_muladds(2) == 700);
  ops::AutoTuning only_two("two", ops::CacheSizes{});
  only_two.set_direct_contraction(2, 400);
  CHECK(*only_two.direct_contraction_muladds(1) == 400);  // none at or below: the smallest measured
}
