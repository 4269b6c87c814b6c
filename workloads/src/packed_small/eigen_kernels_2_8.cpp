// Eigen fixed-size batch kernels for n in {2, 3, 4, 5, 6, 7, 8}.
#include "packed_small/eigen_kernels.hpp"

namespace tfbench::workloads::packed_small::impl {

template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_2_8(int n) {
  switch (n) {
    case 2:
      return &eigen_gemm_batch<T, 2>;
    case 3:
      return &eigen_gemm_batch<T, 3>;
    case 4:
      return &eigen_gemm_batch<T, 4>;
    case 5:
      return &eigen_gemm_batch<T, 5>;
    case 6:
      return &eigen_gemm_batch<T, 6>;
    case 7:
      return &eigen_gemm_batch<T, 7>;
    case 8:
      return &eigen_gemm_batch<T, 8>;
    default:
      return nullptr;
  }
}

template EigenBatchKernel<double> eigen_gemm_kernel_2_8<double>(int);
template EigenBatchKernel<float> eigen_gemm_kernel_2_8<float>(int);

}  // namespace tfbench::workloads::packed_small::impl
