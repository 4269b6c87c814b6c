#pragma once
// Eigen fixed-size batch kernels: Eigen::Matrix<T, N, N> per compiled size N, selected at run time.
// Each size is a separate instantiation (Eigen unrolls and vectorizes for the exact N); a size
// without one is reported unavailable, never run through a dynamic-size fallback.

#include <cstdint>
#include <vector>

#if defined(TFBENCH_HAVE_EIGEN)
// One item is one task of the fan-out: Eigen must not start OpenMP regions of its own inside it.
#define EIGEN_DONT_PARALLELIZE
// A host peer in every build: under nvcc (a CUDA build) Eigen would mark its functions __host__
// __device__ and warn of its own defaulted members.
#ifndef EIGEN_NO_CUDA
#define EIGEN_NO_CUDA
#endif
#include <Eigen/Core>

#include "common/fan_out.hpp"
#endif

namespace tfbench::workloads::packed_small {

template <class T>
using EigenBatchKernel = void (*)(const T* a, const T* b, T* c, std::int64_t batch, int ld,
                                  std::int64_t stride, int threads);

/// The kernel for n, or nullptr when n has no instantiation (or Eigen is not built in).
template <class T>
EigenBatchKernel<T> eigen_gemm_kernel(int n);
/// The sizes with an instantiation, ascending.
std::vector<int> eigen_gemm_sizes();

#if defined(TFBENCH_HAVE_EIGEN)
namespace impl {

/// Eigen's coefficient-based (lazy) product is 1.5-2.5x faster than its blocked GEMM path for fixed
/// N <= 16 (measured at 1 thread on Zen 3, batch 512); beyond, the GEMM path is faster.
template <class T, int N, class A, class B, class C>
inline void eigen_item_product(const A& a, const B& b, C& c) {
  if constexpr (N <= 16) {
    c.noalias() = a.lazyProduct(b);
  } else {
    c.noalias() = a * b;
  }
}

template <class T, int N>
void eigen_gemm_batch(const T* a, const T* b, T* c, std::int64_t batch, int ld, std::int64_t stride,
                      int threads) {
  using Mat = Eigen::Matrix<T, N, N, Eigen::ColMajor>;
  if (ld == N) {
    fan_out(threads, batch, [=](std::int64_t i) {
      Eigen::Map<const Mat> A(a + i * stride), B(b + i * stride);
      Eigen::Map<Mat> C(c + i * stride);
      eigen_item_product<T, N>(A, B, C);
    });
  } else {
    using Stride = Eigen::OuterStride<>;
    fan_out(threads, batch, [=](std::int64_t i) {
      Eigen::Map<const Mat, Eigen::Unaligned, Stride> A(a + i * stride, Stride(ld)),
          B(b + i * stride, Stride(ld));
      Eigen::Map<Mat, Eigen::Unaligned, Stride> C(c + i * stride, Stride(ld));
      eigen_item_product<T, N>(A, B, C);
    });
  }
}

/// The kernels of sizes [First, Last] (compiled in separate files to keep each compile small).
template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_2_8(int n);
template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_9_16(int n);
template <class T>
EigenBatchKernel<T> eigen_gemm_kernel_17_32(int n);

}  // namespace impl
#endif

}  // namespace tfbench::workloads::packed_small
