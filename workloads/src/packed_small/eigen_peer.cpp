// peer:eigen: Eigen fixed-size matrices (Eigen::Map of Matrix<T, N, N> per item), N instantiated
// per size and chosen at run time; items fanned out with OpenMP.

#include "packed_small/eigen_kernels.hpp"
#include "packed_small/gemm_peers.hpp"
#include "packed_small/host_gemm_batch.hpp"

namespace tfbench::workloads::packed_small {

std::vector<int> eigen_gemm_sizes() {
  std::vector<int> sizes;
  for (int n = 2; n <= 32; ++n) {
    if (eigen_gemm_kernel<double>(n)) sizes.push_back(n);
  }
  return sizes;
}

template <class T>
EigenBatchKernel<T> eigen_gemm_kernel(int n) {
#if defined(TFBENCH_HAVE_EIGEN)
  if (n <= 8) return impl::eigen_gemm_kernel_2_8<T>(n);
  if (n <= 16) return impl::eigen_gemm_kernel_9_16<T>(n);
  return impl::eigen_gemm_kernel_17_32<T>(n);
#else
  return nullptr;
#endif
}

namespace {

template <class T>
class EigenGemm final : public HostGemmBatch<T> {
 public:
  EigenGemm(const GemmBatchShape& s, const RunContext& ctx)
      : HostGemmBatch<T>(s, ctx), kernel_(eigen_gemm_kernel<T>(s.n)) {
    if (!kernel_) throw WorkloadError(*eigen_unavailable(s));
  }
  void run() override {
    kernel_(this->a_.data(), this->b_.data(), this->c_.data(), this->shape_.batch, this->shape_.ld,
            this->shape_.stride, this->threads_);
  }

 private:
  EigenBatchKernel<T> kernel_;
};

}  // namespace

std::optional<std::string> eigen_unavailable(const GemmBatchShape& s) {
#if defined(TFBENCH_HAVE_EIGEN)
  if (eigen_gemm_kernel<double>(s.n)) return std::nullopt;
  std::string sizes;
  for (int n : eigen_gemm_sizes()) sizes += (sizes.empty() ? "" : ",") + std::to_string(n);
  return "no Eigen fixed-size instantiation for n = " + std::to_string(s.n) + " (compiled sizes: " + sizes +
         ")";
#else
  return "tfbench was built without Eigen (TFBENCH_ENABLE_EIGEN=OFF)";
#endif
}

template <class T>
std::unique_ptr<Instance> make_eigen(const GemmBatchShape& s, const RunContext& ctx) {
  return std::make_unique<EigenGemm<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_eigen<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_eigen<float>(const GemmBatchShape&, const RunContext&);
template EigenBatchKernel<double> eigen_gemm_kernel<double>(int);
template EigenBatchKernel<float> eigen_gemm_kernel<float>(int);

}  // namespace tfbench::workloads::packed_small
