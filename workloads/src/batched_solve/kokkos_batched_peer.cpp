// peer:kokkosbatched: one parallel_for over the systems on the worker's execution space; per
// system, copy A into its LU scratch and B into X, then KokkosBatched SerialLU (no pivoting) and
// SerialSolveLU. engine:outer_parallel / peer:kokkosbatched is the engine's overhead.

#include "batched_solve/solve_peers.hpp"

#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Serial_Impl.hpp>
#include <KokkosBatched_SolveLU_Decl.hpp>
#include <KokkosBatched_Trsm_Serial_Impl.hpp>
#include <Kokkos_Core.hpp>

#include "common/engine_backend.hpp"

namespace tfbench::workloads::batched_solve {
namespace {

template <class T, class ExecSpace>
class KokkosBatchedSolve final : public Instance {
  using View = Kokkos::View<T***, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;

 public:
  KokkosBatchedSolve(const SolveShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(solve_seeds(ctx.seed)),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::batched_solve::a"),
                              Kokkos::WithoutInitializing),
           s.n, s.n, s.batch),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::batched_solve::b"),
                              Kokkos::WithoutInitializing),
           s.n, s.nrhs, s.batch),
        x_("tfbench::workloads::batched_solve::x", s.n, s.nrhs, s.batch),
        lu_("tfbench::workloads::batched_solve::lu", s.n, s.n, s.batch) {
    auto ha = Kokkos::create_mirror_view(a_);
    auto hb = Kokkos::create_mirror_view(b_);
    fill_system(ha.data(), hb.data(), s, seeds_, ctx.threads);
    Kokkos::deep_copy(a_, ha);
    Kokkos::deep_copy(b_, hb);
  }

  CheckResult check() override {
    run();
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_);
    return check_solve<T>(shape_, seeds_, [&](std::int64_t i, int r, int j) { return hx(r, j, i); });
  }

  void run() override {
    // The library's blocked LU/solve wins from n = 16 on (1.3-1.9x), its unblocked one at n = 2
    // (about 1.8x), and they tie at n = 4..8: the peer uses the faster for its size.
    if (shape_.n >= 8) {
      run_algo<KokkosBatched::Algo::LU::Blocked, KokkosBatched::Algo::SolveLU::Blocked>();
    } else {
      run_algo<KokkosBatched::Algo::LU::Unblocked, KokkosBatched::Algo::SolveLU::Unblocked>();
    }
  }
  template <class LUAlgo, class SolveAlgo>
  void run_algo() {
    using LU = KokkosBatched::SerialLU<LUAlgo>;
    using Solve = KokkosBatched::SerialSolveLU<KokkosBatched::Trans::NoTranspose, SolveAlgo>;
    const View a = a_, b = b_, x = x_, lu = lu_;
    const int n = shape_.n, nrhs = shape_.nrhs;
    Kokkos::parallel_for(
        "tfbench::workloads::batched_solve::kokkosbatched_lu_solve",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, shape_.batch),
        KOKKOS_LAMBDA(const std::int64_t i) {
          auto lui = Kokkos::subview(lu, Kokkos::ALL, Kokkos::ALL, i);
          auto xi = Kokkos::subview(x, Kokkos::ALL, Kokkos::ALL, i);
          for (int c = 0; c < n; ++c) {
            for (int r = 0; r < n; ++r) lui(r, c) = a(r, c, i);
          }
          for (int j = 0; j < nrhs; ++j) {
            for (int r = 0; r < n; ++r) xi(r, j) = b(r, j, i);
          }
          LU::invoke(lui);
          Solve::invoke(lui, xi);
        });
    ExecSpace().fence();
  }

  Work work() const override { return solve_work(shape_); }

 private:
  SolveShape shape_;
  SolveSeeds seeds_;
  View a_, b_, x_, lu_;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_kokkos_batched_solve(const SolveShape& s, const RunContext& ctx) {
  return dispatch_exec_space(engine_space(ctx), [&](auto space) -> std::unique_ptr<Instance> {
    return std::make_unique<KokkosBatchedSolve<T, decltype(space)>>(s, ctx);
  });
}
template std::unique_ptr<Instance> make_kokkos_batched_solve<double>(const SolveShape&, const RunContext&);
template std::unique_ptr<Instance> make_kokkos_batched_solve<float>(const SolveShape&, const RunContext&);

}  // namespace tfbench::workloads::batched_solve
