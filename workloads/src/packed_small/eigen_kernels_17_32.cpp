// Eigen fixed-size batch kernels for n in {20, 24, 32}.
#include "packed_small/eigen_kernels.hpp"

namespace tfbench::workloads::packed_small::impl {

template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_17_32(int n) {
  switch (n) {
    case 20:
      return &eigen_gemm_batch<T, 20>;
    case 24:
      return &eigen_gemm_batch<T, 24>;
    case 32:
      return &eigen_gemm_batch<T, 32>;
    default:
      return nullptr;
  }
}

template EigenBatchKernel<double> eigen_gemm_kernel_17_32<double>(int);
template EigenBatchKernel<float> eigen_gemm_kernel_17_32<float>(int);

}  // namespace tfbench::workloads::packed_small::impl
