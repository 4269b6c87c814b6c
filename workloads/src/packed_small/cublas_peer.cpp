// peer:cublas: one cublas<t>gemmStridedBatched call over the whole batch, on operands in the device
// memory of the worker's Kokkos Cuda space (the call a GPU user writes by hand for a batch of small
// items). It runs on the cuda space only, in builds whose Kokkos Kernels has the cuBLAS TPL.

#include "packed_small/gemm_peers.hpp"

#include <Kokkos_Core.hpp>

#include "common/cublas_handle.hpp"

#include <limits>
#include <type_traits>

namespace tfbench::workloads::packed_small {

std::optional<std::string> cublas_unavailable(const RunContext& ctx) {
  return cublas_unavailable_reason(ctx);
}

#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
namespace {

constexpr const char* kPeer = "packed_small peer:cublas";

void check_status(cublasStatus_t status, const char* what) {
  check_cublas(status, kPeer, what);
}

template <class T>
class CublasGemm final : public Instance {
  using View = Kokkos::View<T***, Kokkos::LayoutLeft, Kokkos::CudaSpace>;

 public:
  CublasGemm(const GemmBatchShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        handle_(space_, kPeer),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::packed_small::cublas_a"),
                              Kokkos::WithoutInitializing),
           s.ld, s.n, s.batch),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::packed_small::cublas_b"),
                              Kokkos::WithoutInitializing),
           s.ld, s.n, s.batch),
        c_("tfbench::workloads::packed_small::cublas_c", s.ld, s.n, s.batch) {
    if (s.batch > std::numeric_limits<int>::max()) {
      throw WorkloadError("packed_small peer:cublas: a batch beyond 2^31 - 1 items");
    }
    // (ld, n, batch) LayoutLeft is the shape's layout: offset = r + ld*c + ld*n*i.
    auto ha = Kokkos::create_mirror_view(a_);
    auto hb = Kokkos::create_mirror_view(b_);
    fill_operand(ha.data(), s, seeds_.a, ctx.threads);
    fill_operand(hb.data(), s, seeds_.b, ctx.threads);
    Kokkos::deep_copy(a_, ha);
    Kokkos::deep_copy(b_, hb);
  }

  CheckResult check() override {
    run();
    space_.fence();
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    return check_gemm_batch<T>(shape_, seeds_, [&](std::int64_t i, int r, int c) { return hc(r, c, i); });
  }

  void run() override {
    const T one = 1, zero = 0;
    const int n = shape_.n, ld = shape_.ld, count = static_cast<int>(shape_.batch);
    const long long stride = shape_.stride;
    if constexpr (std::is_same<T, double>::value) {
      check_status(
          cublasDgemmStridedBatched(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a_.data(), ld,
                                    stride, b_.data(), ld, stride, &zero, c_.data(), ld, stride, count),
          "cublasDgemmStridedBatched");
    } else {
      check_status(
          cublasSgemmStridedBatched(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a_.data(), ld,
                                    stride, b_.data(), ld, stride, &zero, c_.data(), ld, stride, count),
          "cublasSgemmStridedBatched");
    }
    // Complete, as every device variant's run() is: between the harness's fences a batch of calls
    // would otherwise pipeline, hiding the launch and completion latency the others pay.
    space_.fence();
  }

  Work work() const override { return gemm_batch_work(shape_); }

 private:
  Kokkos::Cuda space_;  // first: the handle is ordered on its stream
  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  CublasHandle handle_;
  View a_, b_, c_;
};

}  // namespace
#endif

template <class T>
std::unique_ptr<Instance> make_cublas(const GemmBatchShape& s, const RunContext& ctx) {
  if (auto why = cublas_unavailable(ctx)) throw WorkloadError("packed_small peer:cublas: " + *why);
#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
  return std::make_unique<CublasGemm<T>>(s, ctx);
#else
  (void)s;
  return nullptr;
#endif
}
template std::unique_ptr<Instance> make_cublas<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_cublas<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
