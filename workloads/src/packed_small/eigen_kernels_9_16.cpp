// Eigen fixed-size batch kernels for n in {10, 12, 16}.
#include "packed_small/eigen_kernels.hpp"

namespace tfbench::workloads::packed_small::impl {

template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_9_16(int n) {
  switch (n) {
    case 10:
      return &eigen_gemm_batch<T, 10>;
    case 12:
      return &eigen_gemm_batch<T, 12>;
    case 16:
      return &eigen_gemm_batch<T, 16>;
    default:
      return nullptr;
  }
}

template EigenBatchKernel<double> eigen_gemm_kernel_9_16<double>(int);
template EigenBatchKernel<float> eigen_gemm_kernel_9_16<float>(int);

}  // namespace tfbench::workloads::packed_small::impl
