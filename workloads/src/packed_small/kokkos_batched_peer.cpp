// peer:kokkosbatched: KokkosBatched::SerialGemm per item inside one Kokkos parallel_for over the
// batch on the worker's execution space; the same kernel the engine's portable routes use, without
// the engine around it, so engine:outer_parallel / peer:kokkosbatched is the engine's overhead.

#include "packed_small/gemm_peers.hpp"

#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Serial_Impl.hpp>
#include <Kokkos_Core.hpp>

#include "common/engine_backend.hpp"

#include "common/check.hpp"

namespace tfbench::workloads::packed_small {
namespace {

/// Item i of a batch View (ld, n, batch): the whole column block when packed, the top n rows of it
/// when strided. Functors, not lambdas, so the kernel stays device-compilable.
struct PackedItem {
  template <class View>
  KOKKOS_INLINE_FUNCTION auto operator()(const View& v, std::int64_t i, int) const {
    return Kokkos::subview(v, Kokkos::ALL, Kokkos::ALL, i);
  }
};
struct StridedItem {
  template <class View>
  KOKKOS_INLINE_FUNCTION auto operator()(const View& v, std::int64_t i, int n) const {
    return Kokkos::subview(v, Kokkos::make_pair(0, n), Kokkos::ALL, i);
  }
};

template <class T, class ExecSpace>
class KokkosBatchedGemm final : public Instance {
  using View = Kokkos::View<T***, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;

 public:
  KokkosBatchedGemm(const GemmBatchShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        threads_(ctx.threads),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::packed_small::a"),
                              Kokkos::WithoutInitializing),
           s.ld, s.n, s.batch),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::packed_small::b"),
                              Kokkos::WithoutInitializing),
           s.ld, s.n, s.batch),
        c_("tfbench::workloads::packed_small::c", s.ld, s.n, s.batch) {
    // The layout of a View (ld, n, batch) LayoutLeft is the shape's: offset = r + ld*c + ld*n*i.
    auto ha = Kokkos::create_mirror_view(a_);
    auto hb = Kokkos::create_mirror_view(b_);
    fill_operand(ha.data(), s, seeds_.a, threads_);
    fill_operand(hb.data(), s, seeds_.b, threads_);
    Kokkos::deep_copy(a_, ha);
    Kokkos::deep_copy(b_, hb);
  }

  CheckResult check() override {
    run();
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    return check_gemm_batch<T>(shape_, seeds_, [&](std::int64_t i, int r, int c) { return hc(r, c, i); });
  }

  void run() override {
    if (shape_.packed) {
      launch(PackedItem{});
    } else {
      launch(StridedItem{});
    }
  }

  Work work() const override { return gemm_batch_work(shape_); }

  // Public: CUDA rejects an extended (device) lambda inside a private or protected member function.
  template <class ItemOf>
  void launch(ItemOf item_of) {
    // The library's register-blocked variant wins from n = 8 on (1.3-1.4x at n = 16, 32), the
    // unblocked one below (2x at n = 2): the peer uses whichever is faster for its size.
    if (shape_.n >= 8) {
      launch_algo<KokkosBatched::Algo::Gemm::Blocked>(item_of);
    } else {
      launch_algo<KokkosBatched::Algo::Gemm::Unblocked>(item_of);
    }
  }
  template <class Algo, class ItemOf>
  void launch_algo(ItemOf item_of) {
    using Gemm =
        KokkosBatched::SerialGemm<KokkosBatched::Trans::NoTranspose, KokkosBatched::Trans::NoTranspose, Algo>;
    const View a = a_, b = b_, c = c_;
    const int n = shape_.n;
    Kokkos::parallel_for(
        "tfbench::workloads::packed_small::kokkosbatched_gemm",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space_, 0, shape_.batch),
        KOKKOS_LAMBDA(const std::int64_t i) {
          Gemm::invoke(T(1), item_of(a, i, n), item_of(b, i, n), T(0), item_of(c, i, n));
        });
    space_.fence();
  }

 private:
  ExecSpace space_;  // one instance: Kokkos 4's default constructor allocates on every call
  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  int threads_;
  View a_, b_, c_;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_kokkos_batched(const GemmBatchShape& s, const RunContext& ctx) {
  return dispatch_exec_space(engine_space(ctx), [&](auto space) -> std::unique_ptr<Instance> {
    return std::make_unique<KokkosBatchedGemm<T, decltype(space)>>(s, ctx);
  });
}
template std::unique_ptr<Instance> make_kokkos_batched<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_kokkos_batched<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
