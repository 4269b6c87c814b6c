// The erased boundary allocates no metadata: `_into` calls and prepared replays of small operands
// (views of rank <= 8) make no heap allocation at all once the session's pool is warm, and GEMM-sized
// replays allocate no more than KokkosBlas::gemm itself. Counted by the storage tests' replacement
// of the global operator new (this executable only).

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#include "alloc_counter.hpp"
#include "ops_test_support.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;

}  // namespace

TEST_CASE("the allocation counter of this executable counts", "[ops][alloc]") {
  // Without the replaced operator new every count below would be zero and prove nothing.
  AllocationScope probe;
  auto* p = new double(1.0);
  CHECK(probe.count() == 1);
  delete p;
}

TEST_CASE("_into operations and prepared replays make no heap allocation", "[ops][alloc]") {
  auto backend = ops_backend();
  std::mt19937_64 rng(71);
  auto a = random_operand<double>(rng, {6, 5});
  auto b = random_operand<double>(rng, {6, 5}, {1, 0}, 2);
  auto sq = random_operand<double>(rng, {5, 5});
  auto c = Tensor<double, DynRank, Host>::zeros({6, 5});
  auto t = Tensor<double, DynRank, Host>::zeros({5, 6});
  auto r = Tensor<double, DynRank, Host>::zeros({5});
  auto p6 = Tensor<double, DynRank, Host>::zeros({6, 5});
  in_session(backend, [&](Session& s) {
    auto prepared = ops::prepare_einsum(s, "ik,kj->ij", a.view(), sq.view());
    auto all = [&] {
      ops::add_into(s, c, a.view(), b.view());
      ops::axpby_into(s, c, 2.0, a.view(), -1.0, b.view());
      ops::scale_into(s, c, 3.0, c);
      ops::copy_into(s, c, b.view());
      ops::sum_into(s, r, a.view(), {0});
      ops::permute_into(s, t, a.view(), {1, 0});
      prepared.run_into(s, p6, a.view(), sq.view());
    };
    all();  // warm-up: lazily built statics, the plan
    AllocationScope scope;
    all();
    CHECK(scope.count() == 0);
    // Allocating calls draw their output from the session's pool: warm, no heap allocation either.
    { auto warm = ops::add(s, a.view(), b.view()); }
    AllocationScope allocating;
    { auto sum = ops::add(s, a.view(), b.view()); }
    CHECK(allocating.count() == 0);
  });
}

TEST_CASE("a prepared replay of a GEMM-sized contraction allocates no more than KokkosBlas::gemm itself",
          "[ops][alloc]") {
  // Kokkos Kernels 3.4.1's BLAS-TPL gemm builds its profiling-region name as a std::string on every
  // call (one heap allocation, not ours to remove); the engine's replay must add nothing to it.
  using Matrix =
      Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>>;
  Matrix ma("tfbench::test::ops::alloc::a", 48, 40), mb("tfbench::test::ops::alloc::b", 40, 36),
      mc("tfbench::test::ops::alloc::c", 48, 36);
  KokkosBlas::gemm("N", "N", 1.0, ma, mb, 0.0, mc);  // warm-up
  AllocationScope direct;
  KokkosBlas::gemm("N", "N", 1.0, ma, mb, 0.0, mc);
  const auto gemm_own = direct.count();

  auto backend = ops_backend();
  std::mt19937_64 rng(73);
  auto a = random_operand<double>(rng, {48, 40});
  auto b = random_operand<double>(rng, {40, 36}, {1, 0}, 3);  // row-major, padded
  auto out = Tensor<double, DynRank, Host>::zeros({48, 36});
  in_session(backend, [&](Session& s) {
    auto prepared = ops::prepare_einsum(s, "ik,kj->ij", a.view(), b.view());
    prepared.run_into(s, out, a.view(), b.view());  // warm-up
    AllocationScope replay;
    prepared.run_into(s, out, a.view(), b.view());
    const auto replay_count = replay.count();
    INFO("KokkosBlas::gemm alone allocates " << gemm_own);
    CHECK(replay_count <= gemm_own);
  });
}
