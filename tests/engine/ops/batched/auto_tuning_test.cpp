// Auto's measured choices: AutoTuning's class lookup, and Auto following a tuning carried by the
// backend's batch policy (per-operation and scoped policies without one fall back to the model; a
// choice that cannot run here falls back too; plans are keyed on the tuning).

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "batched_test_support.hpp"
#include "ops/batched/host_providers.hpp"
#include "test_context.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/batched_solve.hpp"

using tfbench::BatchPolicy;
using tfbench::BatchStrategy;
using tfbench::DType;
using tfbench::Host;
using tfbench::Index;
using tfbench::Rank;
using tfbench::Session;
using tfbench::Tensor;
using tfbench::ops::AutoTuning;
using tfbench::ops::BatchedFamily;
using tfbench::ops::CacheSizes;
using tfbench::ops::ItemProvider;
using tfbench::ops::MemoryLevel;
using tfbench::ops::TuningChoice;
using tfbench::ops::TuningClass;

namespace {

using HostT = Tensor<double, Rank<3>, Host>;

constexpr CacheSizes kCaches{32.0 * 1024, 1024.0 * 1024, 32.0 * 1024 * 1024};

HostT random_tensor(Index d0, Index d1, Index d2, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mag(0.1, 1.0);
  std::vector<double> v(std::size_t(d0 * d1 * d2));
  for (auto& x : v) x = mag(rng);
  for (Index i = 0; i < d0 && i < d1; ++i)  // diagonally dominant: safe without pivoting
    for (Index it = 0; it < d2; ++it) v[std::size_t(i + d0 * (i + d1 * it))] += double(d0);
  return HostT::from_col_major({d0, d1, d2}, std::move(v));
}

double gemm_error(const HostT& a, const HostT& b, const HostT& c) {
  const Index m = c.shape()[0], n = c.shape()[1], k = a.shape()[1], batch = c.shape()[2];
  double diff = 0, scale = 0;
  for (Index it = 0; it < batch; ++it)
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < m; ++i) {
        double s = 0;
        for (Index p = 0; p < k; ++p) s += a(i, p, it) * b(p, j, it);
        diff = std::max(diff, std::abs(c(i, j, it) - s));
        scale = std::max(scale, std::abs(s));
      }
  return diff / scale;
}

/// A tuning whose every n = 8 f64 GEMM class (any level, 1 and 2 threads) chooses `provider`.
std::shared_ptr<AutoTuning> gemm_tuning(ItemProvider provider, std::optional<BatchStrategy> strategy = {}) {
  auto tuning = std::make_shared<AutoTuning>("test-tuning", kCaches);
  for (MemoryLevel level : {MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::LLC, MemoryLevel::DRAM})
    for (int threads : {1, 2})
      tuning->add({BatchedFamily::Gemm, DType::F64, 8, level, threads}, {provider, strategy});
  return tuning;
}

/// A tuning of f64 n x n GEMM classes at 1 and 2 threads: `first` at its level, `second` at its.
using LevelChoice = std::pair<MemoryLevel, TuningChoice>;
std::shared_ptr<AutoTuning> gemm_tuning_at(const char* id, int n, const LevelChoice& first,
                                           const LevelChoice& second) {
  auto tuning = std::make_shared<AutoTuning>(id, kCaches);
  for (int threads : {1, 2})
    for (const LevelChoice& at : {first, second})
      tuning->add({BatchedFamily::Gemm, DType::F64, n, at.first, threads}, at.second);
  return tuning;
}

tfbench::CpuBackend backend_with(std::shared_ptr<const AutoTuning> tuning) {
  tfbench::CpuBackendConfig config;
  config.space = tfbench::is_host_space(tfbench::testing::space()) ? tfbench::testing::space()
                                                                   : tfbench::ExecSpaceKind::Serial;
  config.batch_policy.tuning = std::move(tuning);
  auto made = tfbench::CpuBackend::create(config);
  REQUIRE(made.has_value());
  return std::move(made).value();
}

/// Auto's prefetch of the next item on `provider`'s n x n items comes from a tuning that measured it
/// faster in the L2 and slower in the LLC, the other way round from the built-in rule (on beyond the
/// L2 cache); a per-operation choice overrides it. `llc_items` and `l2_items`: batches whose operands
/// lie in kCaches' LLC and L2.
void check_prefetch_from_tuning(const char* id, ItemProvider provider, Index n, Index llc_items,
                                Index l2_items) {
  const auto tuning =
      gemm_tuning_at(id, int(n), {MemoryLevel::L2, {provider, BatchStrategy::Sequential, true}},
                     {MemoryLevel::LLC, {provider, BatchStrategy::Sequential, false}});
  auto backend = backend_with(tuning);
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto a = random_tensor(n, n, llc_items, 21), b = random_tensor(n, n, llc_items, 22);
                auto c = random_tensor(n, n, llc_items, 23);
                auto llc = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0);
                REQUIRE(llc.has_value());
                CHECK(llc->tuned);
                CHECK(llc->provider == provider);
                CHECK(llc->prefetch == std::optional<bool>(false));
                CHECK(gemm_error(a, b, c) <= 1e-12);
                tfbench::ops::BatchedOptions on;
                on.prefetch = true;
                auto forced = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, on);
                REQUIRE(forced.has_value());
                CHECK(forced->tuned);  // the provider still comes from the tuning
                CHECK(forced->prefetch == std::optional<bool>(true));
                CHECK(gemm_error(a, b, c) <= 1e-12);
                auto a2 = random_tensor(n, n, l2_items, 24), b2 = random_tensor(n, n, l2_items, 25);
                auto c2 = random_tensor(n, n, l2_items, 26);
                auto l2 = tfbench::ops::batched_gemm_into(s, a2, b2, c2, 1.0, 0.0);
                REQUIRE(l2.has_value());
                CHECK(l2->tuned);
                CHECK(l2->prefetch == std::optional<bool>(true));
                const std::string says = std::string(tfbench::ops::name(provider)) + "+prefetch (tuned)";
                CHECK(tfbench::ops::describe(*l2).find(says) != std::string::npos);
                CHECK(gemm_error(a2, b2, c2) <= 1e-12);
              })
              .has_value());
}

}  // namespace

TEST_CASE("AutoTuning: memory level, nearest measured class, thread count, no class", "[batched][tuning]") {
  CHECK(tfbench::ops::memory_level(16.0 * 1024, kCaches) == MemoryLevel::L1);
  CHECK(tfbench::ops::memory_level(512.0 * 1024, kCaches) == MemoryLevel::L2);
  CHECK(tfbench::ops::memory_level(8.0 * 1024 * 1024, kCaches) == MemoryLevel::LLC);
  CHECK(tfbench::ops::memory_level(256.0 * 1024 * 1024, kCaches) == MemoryLevel::DRAM);
  CHECK(tfbench::ops::memory_level(1e3, CacheSizes{}) == MemoryLevel::DRAM);  // nothing measured
  CHECK(tfbench::ops::parse_memory_level("llc") == MemoryLevel::LLC);
  CHECK_FALSE(tfbench::ops::parse_memory_level("l3").has_value());

  AutoTuning t("t", kCaches);
  t.add({BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 1}, {ItemProvider::Libxsmm, std::nullopt});
  t.add({BatchedFamily::Gemm, DType::F64, 16, MemoryLevel::L2, 1}, {ItemProvider::Blas, std::nullopt});
  t.add({BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 2},
        {ItemProvider::Specialized, BatchStrategy::OuterParallel});
  const double l2 = 512.0 * 1024;
  auto at = [&](int n, double bytes, int threads) {
    return t.lookup(BatchedFamily::Gemm, DType::F64, n, bytes, threads);
  };
  REQUIRE(at(8, l2, 1));
  CHECK(at(8, l2, 1)->provider == ItemProvider::Libxsmm);
  CHECK(at(9, l2, 1)->provider == ItemProvider::Libxsmm);  // nearest on a log scale
  CHECK(at(14, l2, 1)->provider == ItemProvider::Blas);
  CHECK(at(32, l2, 1)->provider == ItemProvider::Blas);  // a factor of two from 16
  CHECK_FALSE(at(64, l2, 1).has_value());                // beyond a factor of two
  CHECK_FALSE(at(3, l2, 1).has_value());
  REQUIRE(at(4, l2, 1));  // exactly a factor of two below 8 still applies
  CHECK(at(4, l2, 1)->provider == ItemProvider::Libxsmm);
  REQUIRE(at(12, l2, 1));  // 16 / 12 < 12 / 8: the nearer on a log scale
  CHECK(at(12, l2, 1)->provider == ItemProvider::Blas);
  REQUIRE(at(8, l2, 4));  // the largest measured count <= 4
  CHECK(at(8, l2, 4)->strategy == BatchStrategy::OuterParallel);
  CHECK_FALSE(at(8, 16.0 * 1024, 1).has_value());  // no L1 class measured
  CHECK_FALSE(t.lookup(BatchedFamily::Solve, DType::F64, 8, l2, 1).has_value());
  CHECK_FALSE(t.lookup(BatchedFamily::Gemm, DType::F32, 8, l2, 1).has_value());
  // add() replaces a class's choice.
  t.add({BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 1},
        {ItemProvider::KokkosBatched, std::nullopt});
  CHECK(at(8, l2, 1)->provider == ItemProvider::KokkosBatched);
  CHECK(t.size() == 3);

  // The order classes are added in changes no answer; a tie on the log scale goes to the smaller size.
  AutoTuning u("u", kCaches);
  u.add({BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 2}, {ItemProvider::Blas, std::nullopt});
  u.add({BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 1}, {ItemProvider::Libxsmm, std::nullopt});
  u.add({BatchedFamily::Gemm, DType::F32, 4, MemoryLevel::L2, 1}, {ItemProvider::Blas, std::nullopt});
  u.add({BatchedFamily::Gemm, DType::F64, 2, MemoryLevel::L2, 1}, {ItemProvider::Specialized, std::nullopt});
  auto in_u = [&](int n, int threads) { return u.lookup(BatchedFamily::Gemm, DType::F64, n, l2, threads); };
  REQUIRE(in_u(4, 1));
  CHECK(in_u(4, 1)->provider == ItemProvider::Specialized);  // 4 / 2 == 8 / 4: the smaller size
  CHECK(in_u(8, 1)->provider == ItemProvider::Libxsmm);
  CHECK(in_u(8, 4)->provider == ItemProvider::Blas);  // the largest count <= 4 is 2
  CHECK_FALSE(in_u(2, 4).has_value());  // threads first: 2 threads measured only n = 8, 8 / 2 > 2
  CHECK(u.size() == 4);
}

TEST_CASE("AutoTuning: a thread's remembered answer never outlives its question or its tuning",
          "[batched][tuning]") {
  const double l2 = 512.0 * 1024;
  const TuningClass cls{BatchedFamily::Gemm, DType::F64, 8, MemoryLevel::L2, 1};
  auto make = [&](ItemProvider p) {
    auto t = std::make_unique<AutoTuning>("t", kCaches);
    t->add(cls, {p, std::nullopt});
    return t;
  };
  auto first = make(ItemProvider::Libxsmm);
  auto second = make(ItemProvider::Blas);
  for (int i = 0; i < 3; ++i) {  // the same question of two tunings, alternately
    CHECK(first->lookup(BatchedFamily::Gemm, DType::F64, 8, l2, 1)->provider == ItemProvider::Libxsmm);
    CHECK(second->lookup(BatchedFamily::Gemm, DType::F64, 8, l2, 1)->provider == ItemProvider::Blas);
  }
  // Each part of the question counts: another family, dtype, size, working set or thread count.
  CHECK_FALSE(first->lookup(BatchedFamily::Solve, DType::F64, 8, l2, 1).has_value());
  CHECK_FALSE(first->lookup(BatchedFamily::Gemm, DType::F32, 8, l2, 1).has_value());
  CHECK_FALSE(first->lookup(BatchedFamily::Gemm, DType::F64, 32, l2, 1).has_value());
  CHECK_FALSE(first->lookup(BatchedFamily::Gemm, DType::F64, 8, 16.0 * 1024, 1).has_value());
  CHECK(first->lookup(BatchedFamily::Gemm, DType::F64, 8, l2, 1).has_value());
  // A tuning made where a freed one was (the allocator may well reuse its address) answers for itself.
  for (ItemProvider p : {ItemProvider::Specialized, ItemProvider::KokkosBatched, ItemProvider::Libxsmm}) {
    first = make(p);
    CHECK(first->lookup(BatchedFamily::Gemm, DType::F64, 8, l2, 1)->provider == p);
  }
  // add() after a lookup: the next lookup sees the new choice.
  first->add(cls, {ItemProvider::Blas, BatchStrategy::Sequential});
  CHECK(first->lookup(BatchedFamily::Gemm, DType::F64, 8, l2, 1)->strategy == BatchStrategy::Sequential);
}

TEST_CASE("AutoTuning: with threads, a level is one of the caches they hold between them",
          "[batched][tuning]") {
  // kCaches: 1 MiB L2 per core. 1.5 MiB over two lanes is 0.75 MiB per core's L2: an L2 batch at two
  // threads, as the tuning measured it (and as the roofline classifies it), an LLC batch at one.
  constexpr double MiB = 1024.0 * 1024;
  const CacheSizes two = tfbench::ops::caches_for_threads(kCaches, 2);
  CHECK(two.l1_bytes == 2 * kCaches.l1_bytes);
  CHECK(two.l2_bytes == 2 * kCaches.l2_bytes);
  CHECK(two.llc_bytes == kCaches.llc_bytes);  // shared: once
  CHECK(tfbench::ops::caches_for_threads(kCaches, 0).l2_bytes == kCaches.l2_bytes);
  AutoTuning t("t", kCaches);
  const auto at_level = [](MemoryLevel level, int threads, double bytes) {
    return TuningClass{BatchedFamily::Gemm, DType::F64, 16, level, threads, bytes};
  };
  t.add(at_level(MemoryLevel::L2, 2, 1.6 * MiB),
        {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, false});
  t.add(at_level(MemoryLevel::LLC, 2, 5.4 * MiB),
        {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, true});
  t.add(at_level(MemoryLevel::LLC, 1, 5.4 * MiB), {ItemProvider::Blas, BatchStrategy::ProviderItems});
  const auto two_threads = t.lookup(BatchedFamily::Gemm, DType::F64, 16, 1.5 * MiB, 2);
  REQUIRE(two_threads.has_value());
  CHECK(two_threads->prefetch == std::optional<bool>(false));  // the L2 class, not the LLC one
  const auto one_thread = t.lookup(BatchedFamily::Gemm, DType::F64, 16, 1.5 * MiB, 1);
  REQUIRE(one_thread.has_value());
  CHECK(one_thread->provider == ItemProvider::Blas);
}

TEST_CASE("AutoTuning: a level measured at several sizes answers with the nearest size",
          "[batched][tuning]") {
  // One LLC from 1 to 32 MiB: on a Xeon with a 300 MiB LLC, libxsmm won at 3 MiB and the specialized
  // kernel at 25 MiB; one class for the whole level gave a 3 MiB batch the 25 MiB answer.
  constexpr double MiB = 1024.0 * 1024;
  AutoTuning t("t", kCaches);
  const auto llc = [](int threads, double bytes) {
    return TuningClass{BatchedFamily::Gemm, DType::F64, 16, MemoryLevel::LLC, threads, bytes};
  };
  t.add(llc(1, 24 * MiB), {ItemProvider::Specialized, std::nullopt});
  t.add(llc(1, 4 * MiB), {ItemProvider::Libxsmm, std::nullopt});
  t.add(llc(1, 12 * MiB), {ItemProvider::Blas, std::nullopt});
  t.add(llc(2, 4 * MiB), {ItemProvider::KokkosBatched, BatchStrategy::OuterParallel});
  CHECK(t.size() == 4);  // distinct sizes are distinct classes
  auto at = [&](int n, double bytes, int threads) {
    return t.lookup(BatchedFamily::Gemm, DType::F64, n, bytes, threads)->provider;
  };
  CHECK(at(16, 3 * MiB, 1) == ItemProvider::Libxsmm);
  CHECK(at(16, 6.5 * MiB, 1) == ItemProvider::Libxsmm);  // 6.5 / 4 < 12 / 6.5
  CHECK(at(16, 7.5 * MiB, 1) == ItemProvider::Blas);
  CHECK(at(16, 30 * MiB, 1) == ItemProvider::Specialized);
  CHECK(at(14, 30 * MiB, 1) == ItemProvider::Specialized);    // item size first, then bytes
  CHECK(at(16, 30 * MiB, 2) == ItemProvider::KokkosBatched);  // threads first: 2 threads have one size
  t.add(llc(1, 4 * MiB), {ItemProvider::KokkosBatched, std::nullopt});  // replaces that size's choice
  CHECK(t.size() == 4);
  CHECK(at(16, 3 * MiB, 1) == ItemProvider::KokkosBatched);
  // A class without a size (0) answers for its whole level, but a measured size nearby wins.
  AutoTuning u("u", kCaches);
  u.add({BatchedFamily::Gemm, DType::F64, 16, MemoryLevel::LLC, 1}, {ItemProvider::Blas, std::nullopt});
  CHECK(u.lookup(BatchedFamily::Gemm, DType::F64, 16, 3 * MiB, 1)->provider == ItemProvider::Blas);
  u.add(llc(1, 24 * MiB), {ItemProvider::Specialized, std::nullopt});
  CHECK(u.lookup(BatchedFamily::Gemm, DType::F64, 16, 3 * MiB, 1)->provider == ItemProvider::Specialized);
}

TEST_CASE("AutoTuning: between two measured sizes the candidates' times are interpolated",
          "[batched][tuning]") {
  // The Xeon's n = 32 LLC classes: OpenBLAS per item 2.5% ahead at 5.4 MiB (noise-level), libxsmm 9%
  // ahead at 39 MiB. A 12 MiB batch is nearer 5.4 MiB on a log scale, so the nearest class alone
  // sends it to OpenBLAS; the times of both classes, interpolated, say libxsmm, which measured
  // faster at 12 MiB (971 against 992 us).
  constexpr double MiB = 1024.0 * 1024;
  const auto llc = [](double bytes) {
    return TuningClass{BatchedFamily::Gemm, DType::F64, 32, MemoryLevel::LLC, 1, bytes};
  };
  const TuningChoice xsmm{ItemProvider::Libxsmm, BatchStrategy::Sequential};
  const TuningChoice blas{ItemProvider::Blas, BatchStrategy::ProviderItems};
  AutoTuning t("t", kCaches);
  t.add(llc(5.4 * MiB), blas, {{xsmm, 456e-6}, {blas, 444e-6}});
  t.add(llc(39 * MiB), xsmm, {{xsmm, 5681e-6}, {blas, 6196e-6}});
  auto at = [&](double bytes) { return t.lookup(BatchedFamily::Gemm, DType::F64, 32, bytes, 1)->provider; };
  CHECK(at(12 * MiB) == ItemProvider::Libxsmm);
  CHECK(at(6 * MiB) == ItemProvider::Blas);    // near 5.4 MiB the interpolation still says OpenBLAS
  CHECK(at(5.4 * MiB) == ItemProvider::Blas);  // a measured size answers for itself
  CHECK(at(3 * MiB) == ItemProvider::Blas);    // outside the measured sizes: the nearest class
  CHECK(at(30 * MiB) == ItemProvider::Libxsmm);
  // Without times (a hand-written tuning, an older file) the nearest class decides, as before.
  AutoTuning u("u", kCaches);
  u.add(llc(5.4 * MiB), blas);
  u.add(llc(39 * MiB), xsmm, {{xsmm, 5681e-6}, {blas, 6196e-6}});
  CHECK(u.lookup(BatchedFamily::Gemm, DType::F64, 32, 12 * MiB, 1)->provider == ItemProvider::Blas);
  // Only candidates measured at both sizes compete: one dropped at either size is not extrapolated.
  AutoTuning v("v", kCaches);
  v.add(llc(5.4 * MiB), blas, {{blas, 444e-6}});
  v.add(llc(39 * MiB), xsmm, {{xsmm, 5681e-6}, {blas, 6196e-6}});
  CHECK(v.lookup(BatchedFamily::Gemm, DType::F64, 32, 12 * MiB, 1)->provider == ItemProvider::Blas);
  // libxsmm with and without prefetching are two candidates: the interpolation keeps them apart.
  const TuningChoice xsmm_pf{ItemProvider::Libxsmm, BatchStrategy::Sequential, true};
  const TuningChoice xsmm_off{ItemProvider::Libxsmm, BatchStrategy::Sequential, false};
  AutoTuning w("w", kCaches);
  w.add(llc(5.4 * MiB), xsmm_off, {{xsmm_off, 418e-6}, {xsmm_pf, 453e-6}});
  w.add(llc(39 * MiB), xsmm_pf, {{xsmm_off, 4622e-6}, {xsmm_pf, 4200e-6}});
  const auto mid = w.lookup(BatchedFamily::Gemm, DType::F64, 32, 12 * MiB, 1);
  REQUIRE(mid.has_value());
  CHECK(*mid == xsmm_off);
  const auto high = w.lookup(BatchedFamily::Gemm, DType::F64, 32, 30 * MiB, 1);
  REQUIRE(high.has_value());
  CHECK(*high == xsmm_pf);
}

TEST_CASE("AutoTuning: between two sizes streaming stores need the margin a class asks of them",
          "[batched][tuning]") {
  // The Zen 2 tune of 2026-12-05 (run g), n = 16 at two threads, libxsmm outer-parallel: fastest
  // round and median (us) at 2 MiB and 8 MiB. By fastest rounds alone, prefetch off with streaming
  // stores is ahead between them; but near 2 MiB its twin with regular stores has a round within its
  // median, so it is set aside, and prefetch on with streaming stores (the fastest median at 2 MiB,
  // 41.0 against 43.7) wins. At 3 MiB, the run's batch, the tie holds by 0.01%; at 2.2 MiB by 0.2%.
  // The run took the first: 0.972 of libxsmm's peer.
  constexpr double MiB = 1024.0 * 1024;
  const auto llc = [](double bytes) {
    return TuningClass{BatchedFamily::Gemm, DType::F64, 16, MemoryLevel::LLC, 2, bytes};
  };
  const auto route = [](bool prefetch, bool streaming) {
    return TuningChoice{ItemProvider::Libxsmm, BatchStrategy::OuterParallel, prefetch, streaming};
  };
  const TuningChoice pf_nt = route(true, true), pf = route(true, false), nt = route(false, true),
                     plain = route(false, false);
  AutoTuning t("t", kCaches);
  t.add(llc(2.0 * MiB), pf_nt,
        {{pf_nt, 40.45e-6, 41.02e-6},
         {pf, 41.79e-6, 43.22e-6},
         {nt, 40.24e-6, 43.73e-6},
         {plain, 43.63e-6, 46.1e-6}});
  t.add(llc(8.0 * MiB), nt,
        {{nt, 155.7e-6, 157.8e-6},
         {pf_nt, 157.8e-6, 161.5e-6},
         {plain, 158.6e-6, 167.4e-6},
         {pf, 164.9e-6, 167.5e-6}});
  const auto near_2 = t.lookup(BatchedFamily::Gemm, DType::F64, 16, 2.2 * MiB, 2);
  REQUIRE(near_2.has_value());
  CHECK(*near_2 == pf_nt);
  // Times without medians (an older file): the fastest rounds alone, as before.
  AutoTuning u("u", kCaches);
  u.add(llc(2.0 * MiB), pf_nt, {{pf_nt, 40.45e-6}, {pf, 41.79e-6}, {nt, 40.24e-6}, {plain, 43.63e-6}});
  u.add(llc(8.0 * MiB), nt, {{nt, 155.7e-6}, {pf_nt, 157.8e-6}, {plain, 158.6e-6}, {pf, 164.9e-6}});
  CHECK(*u.lookup(BatchedFamily::Gemm, DType::F64, 16, 2.2 * MiB, 2) == nt);
}

TEST_CASE("choose_measured: streaming stores set aside in a tie leave the choice to the rest",
          "[batched][tuning]") {
  using tfbench::ops::choose_measured;
  using tfbench::ops::TunedTime;
  const auto route = [](bool prefetch, bool streaming) {
    return TuningChoice{ItemProvider::Libxsmm, BatchStrategy::OuterParallel, prefetch, streaming};
  };
  // Run g's 2 MiB class above: its twin within its median sets prefetch-off streaming aside; then
  // prefetch-on streaming, whose twin's fastest round (41.79) is beyond its median (41.02), stands,
  // not the set-aside route's twin (43.63, median 46.1).
  const std::vector<TunedTime> g = {{route(true, true), 40.45e-6, 41.02e-6},
                                    {route(true, false), 41.79e-6, 43.22e-6},
                                    {route(false, true), 40.24e-6, 43.73e-6},
                                    {route(false, false), 43.63e-6, 46.1e-6}};
  REQUIRE(choose_measured(g) == std::optional<std::size_t>(0));
  // Every streaming route tied with its twin: the fastest regular one.
  const std::vector<TunedTime> tied = {{route(false, true), 1.0e-3, 1.2e-3},
                                       {route(false, false), 1.1e-3, 1.2e-3},
                                       {route(true, true), 1.05e-3, 1.3e-3},
                                       {route(true, false), 1.15e-3, 1.2e-3}};
  CHECK(choose_measured(tied) == std::optional<std::size_t>(1));
  // No time at all: no choice.
  CHECK_FALSE(choose_measured({{route(false, false), 0.0, 0.0}}).has_value());
  CHECK_FALSE(choose_measured({}).has_value());
}

TEST_CASE("Auto follows the backend policy's tuning; policies without one use the model",
          "[batched][tuning]") {
  // KokkosBatched is never Auto's built-in choice on a host space: only the tuning can pick it.
  auto backend = backend_with(gemm_tuning(ItemProvider::KokkosBatched));
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto a = random_tensor(8, 8, 64, 1), b = random_tensor(8, 8, 64, 2);
                auto c = random_tensor(8, 8, 64, 3);
                auto tuned = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0);
                REQUIRE(tuned.has_value());
                CHECK(tuned->provider == ItemProvider::KokkosBatched);
                CHECK(tuned->tuned);
                CHECK(tfbench::ops::describe(*tuned).find("(tuned)") != std::string::npos);
                CHECK(gemm_error(a, b, c) <= 1e-12);

                // A per-operation policy the caller built carries no tuning: the model decides.
                tfbench::ops::BatchedOptions per_op;
                per_op.policy = BatchPolicy{};
                auto model = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, per_op);
                REQUIRE(model.has_value());
                CHECK(model->provider == ItemProvider::Specialized);
                CHECK_FALSE(model->tuned);

                // A forced strategy ignores the tuning; a forced provider too.
                per_op.policy = BatchPolicy{BatchStrategy::Sequential, {}, s.backend_batch_policy().tuning};
                auto forced = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, per_op);
                REQUIRE(forced.has_value());
                CHECK(forced->provider == ItemProvider::Specialized);
                CHECK_FALSE(forced->tuned);
                tfbench::ops::BatchedOptions one;
                one.provider = ItemProvider::Specialized;
                auto chosen = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, one);
                REQUIRE(chosen.has_value());
                CHECK_FALSE(chosen->tuned);

                // No class for n = 32: the model.
                auto a32 = random_tensor(32, 32, 4, 4), b32 = random_tensor(32, 32, 4, 5);
                auto c32 = random_tensor(32, 32, 4, 6);
                auto big = tfbench::ops::batched_gemm_into(s, a32, b32, c32, 1.0, 0.0);
                REQUIRE(big.has_value());
                CHECK_FALSE(big->tuned);
              })
              .has_value());
}

TEST_CASE("Auto takes libxsmm's prefetching from the tuning; a per-operation choice overrides it",
          "[batched][tuning]") {
  if (!tfbench::impl::batched::libxsmm_compiled()) return;  // no libxsmm route to tune
  // On a Xeon (105 MiB LLC) the kernel without prefetching was 9% faster for 32 x 32 items in the LLC.
  check_prefetch_from_tuning("prefetch-tuning", ItemProvider::Libxsmm, 8, 2048, 128);
}

TEST_CASE("Auto takes the specialized kernel's prefetch from the tuning; a per-operation choice overrides it",
          "[batched][tuning]") {
  if (!tfbench::ops::has_prefetching_kernel(DType::F64, 16)) return;  // no prefetching kernel in this build
  check_prefetch_from_tuning("specialized-prefetch-tuning", ItemProvider::Specialized, 16, 512, 64);
}

TEST_CASE("Auto takes streaming stores of C from the tuning; a per-operation choice overrides it",
          "[batched][tuning]") {
#if defined(TFBENCH_IMPL_STREAM_STORES)
  // The built-in rule streams the specialized kernel's C beyond 2 MiB of operands, wherever the batch
  // lives; the tuning measured regular stores faster in the L2 and streaming ones from DRAM.
  const auto tuning = gemm_tuning_at(
      "stream-tuning", 4,
      {MemoryLevel::L2, {ItemProvider::Specialized, BatchStrategy::Sequential, std::nullopt, true}},
      {MemoryLevel::LLC, {ItemProvider::Specialized, BatchStrategy::Sequential, std::nullopt, false}});
  // C at aligned addresses, where the specialized kernel's streaming stores apply.
  auto aligned_c = [](Index items) { return tfbench::testing::aligned_items(4, items, -1.0); };
  auto backend = backend_with(tuning);
  REQUIRE(backend
              .with_session([&](Session& s) {
                // 8192 items of 4 x 4: 3 MiB of operands, in kCaches' LLC (the rule: streaming stores).
                auto a = random_tensor(4, 4, 8192, 31), b = random_tensor(4, 4, 8192, 32);
                auto c = aligned_c(8192);
                auto llc = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0);
                REQUIRE(llc.has_value());
                CHECK(llc->tuned);
                CHECK(llc->streaming_stores == std::optional<bool>(false));
                CHECK(gemm_error(a, b, c) <= 1e-12);
                tfbench::ops::BatchedOptions on;
                on.streaming_stores = true;
                auto forced = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, on);
                REQUIRE(forced.has_value());
                CHECK(forced->tuned);
                CHECK(forced->streaming_stores == std::optional<bool>(true));
                CHECK(gemm_error(a, b, c) <= 1e-12);
                // 1024 items (384 KiB, in kCaches' L2; the rule: regular stores).
                auto a2 = random_tensor(4, 4, 1024, 34), b2 = random_tensor(4, 4, 1024, 35);
                auto c2 = aligned_c(1024);
                auto l2 = tfbench::ops::batched_gemm_into(s, a2, b2, c2, 1.0, 0.0);
                REQUIRE(l2.has_value());
                CHECK(l2->tuned);
                CHECK(l2->streaming_stores == std::optional<bool>(true));
                CHECK(gemm_error(a2, b2, c2) <= 1e-12);
              })
              .has_value());
#endif
}

TEST_CASE("Auto takes the specialized kernel's width from the tuning; a per-operation choice overrides it",
          "[batched][tuning]") {
  if (!tfbench::ops::has_two_kernel_widths(DType::F64, 4)) return;  // one width of kernel in this build
  // The tuning measured the 256-bit 4 x 4 kernel faster in the L2 (as on Zen 4) and the 512-bit one
  // in the L1; the built-in rule runs the 512-bit kernel everywhere.
  const auto tuning = gemm_tuning_at(
      "width-tuning", 4,
      {MemoryLevel::L2,
       {ItemProvider::Specialized, BatchStrategy::Sequential, std::nullopt, std::nullopt, true}},
      {MemoryLevel::L1,
       {ItemProvider::Specialized, BatchStrategy::Sequential, std::nullopt, std::nullopt, false}});
  auto backend = backend_with(tuning);
  REQUIRE(backend
              .with_session([&](Session& s) {
                // 1024 items of 4 x 4: 384 KiB of operands, in kCaches' L2.
                auto a = random_tensor(4, 4, 1024, 41), b = random_tensor(4, 4, 1024, 42);
                auto c = random_tensor(4, 4, 1024, 43);
                auto l2 = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0);
                REQUIRE(l2.has_value());
                CHECK(l2->tuned);
                CHECK(l2->narrow_vectors == std::optional<bool>(true));
                CHECK(tfbench::ops::describe(*l2).find("specialized+256-bit (tuned)") != std::string::npos);
                CHECK(gemm_error(a, b, c) <= 1e-12);
                tfbench::ops::BatchedOptions wide;
                wide.narrow_vectors = false;
                auto forced = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, wide);
                REQUIRE(forced.has_value());
                CHECK(forced->tuned);  // the provider still comes from the tuning
                CHECK(forced->narrow_vectors == std::optional<bool>(false));
                CHECK(gemm_error(a, b, c) <= 1e-12);
                // 16 items (6 KiB, in kCaches' L1): the tuning's 512-bit kernel.
                auto a1 = random_tensor(4, 4, 16, 44), b1 = random_tensor(4, 4, 16, 45);
                auto c1 = random_tensor(4, 4, 16, 46);
                auto l1 = tfbench::ops::batched_gemm_into(s, a1, b1, c1, 1.0, 0.0);
                REQUIRE(l1.has_value());
                CHECK(l1->tuned);
                CHECK(l1->narrow_vectors == std::optional<bool>(false));
                CHECK(gemm_error(a1, b1, c1) <= 1e-12);
              })
              .has_value());
}

TEST_CASE("Auto falls back to the model when the tuning's choice cannot run here", "[batched][tuning]") {
  // Solve: KokkosBatched's LU does not pivot, so a tuning that chose it applies only under
  // Pivoting::None.
  auto tuning = std::make_shared<AutoTuning>("solve-tuning", kCaches);
  for (MemoryLevel level : {MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::LLC, MemoryLevel::DRAM})
    for (int threads : {1, 2})
      tuning->add({BatchedFamily::Solve, DType::F64, 8, level, threads},
                  {ItemProvider::KokkosBatched, std::nullopt});
  auto backend = backend_with(tuning);
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto a = random_tensor(8, 8, 32, 7), b = random_tensor(8, 2, 32, 8);
                auto x = random_tensor(8, 2, 32, 9);
                auto pivoting = tfbench::ops::batched_solve_into(s, a, b, x);
                REQUIRE(pivoting.has_value());
                CHECK(pivoting->provider == ItemProvider::Specialized);
                CHECK_FALSE(pivoting->tuned);
                tfbench::ops::BatchedOptions none;
                none.pivoting = tfbench::ops::Pivoting::None;
                auto unpivoted = tfbench::ops::batched_solve_into(s, a, b, x, none);
                REQUIRE(unpivoted.has_value());
                CHECK(unpivoted->provider == ItemProvider::KokkosBatched);
                CHECK(unpivoted->tuned);
              })
              .has_value());
}

TEST_CASE("Prepared plans are keyed on the policy's tuning", "[batched][tuning]") {
  auto first = gemm_tuning(ItemProvider::KokkosBatched);
  auto second = gemm_tuning(ItemProvider::KokkosBatched);
  BatchPolicy a, b, c;
  a.tuning = first;
  b.tuning = second;
  c.tuning = first;
  CHECK(a != b);  // same contents, another tuning: another key
  CHECK(a == c);
  CHECK(a != BatchPolicy{});
}
