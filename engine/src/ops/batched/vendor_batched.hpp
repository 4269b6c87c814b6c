#pragma once
// Vendor routes on device spaces: one cuBLAS gemm per item (the device "blas" provider) and one
// cublas<t>gemmStridedBatched call for the whole batch (WholeBatchVendor). They exist only in CUDA
// builds whose Kokkos Kernels has the cuBLAS TPL; everywhere else they do not apply, and a forced
// WholeBatchVendor is the typed no-route error (OpenBLAS 0.3.21 has no batched gemm).

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <type_traits>

#include "specialized_gemm.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
#include <cublas_v2.h>
#include <KokkosBlas_tpl_spec.hpp>
#define TFBENCH_IMPL_HAVE_CUBLAS 1
#endif

namespace tfbench::impl::batched {

#if defined(TFBENCH_IMPL_HAVE_CUBLAS)
template <class T>
constexpr bool cublas_type() {
  return std::is_same<T, double>::value || std::is_same<T, float>::value ||
         std::is_same<T, Kokkos::complex<double>>::value;
}

/// cuBLAS wants column-major items (unit row stride) with leading dimensions >= rows.
template <class T>
bool cublas_layout(const GemmBatch<T>& g) {
  return g.a.unit_rows() && g.b.unit_rows() && g.c.unit_rows() && g.a.bs >= 0 && g.b.bs >= 0 && g.c.bs >= 0;
}

inline int cublas_ld(int rows, std::ptrdiff_t cs) {
  return static_cast<int>(cs > rows ? cs : (rows > 0 ? rows : 1));
}

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("tfbench: ") + what + " failed");
}

inline cublasHandle_t cublas_handle(const Kokkos::Cuda& space) {
  cublasHandle_t handle = KokkosBlas::Impl::CudaBlasSingleton::singleton().handle;
  check_cublas(cublasSetStream(handle, space.cuda_stream()), "cublasSetStream");
  return handle;
}

template <class T>
void cublas_gemm_one(cublasHandle_t h, const GemmBatch<T>& g, const T* a, const T* b, T* c) {
  const int lda = cublas_ld(g.a.rows, g.a.cs), ldb = cublas_ld(g.b.rows, g.b.cs),
            ldc = cublas_ld(g.c.rows, g.c.cs);
  if constexpr (std::is_same<T, double>::value) {
    check_cublas(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(), &g.alpha, a, lda, b, ldb,
                             &g.beta, c, ldc),
                 "cublasDgemm");
  } else if constexpr (std::is_same<T, float>::value) {
    check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(), &g.alpha, a, lda, b, ldb,
                             &g.beta, c, ldc),
                 "cublasSgemm");
  } else {
    check_cublas(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(),
                             reinterpret_cast<const cuDoubleComplex*>(&g.alpha),
                             reinterpret_cast<const cuDoubleComplex*>(a), lda,
                             reinterpret_cast<const cuDoubleComplex*>(b), ldb,
                             reinterpret_cast<const cuDoubleComplex*>(&g.beta),
                             reinterpret_cast<cuDoubleComplex*>(c), ldc),
                 "cublasZgemm");
  }
}
#endif

template <class Space, class T>
bool vendor_items_applicable(const GemmBatch<T>& g) {
#if defined(TFBENCH_IMPL_HAVE_CUBLAS)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value && cublas_type<T>()) return cublas_layout(g);
#endif
  (void)g;
  return false;
}

template <class Space, class T>
bool vendor_batched_applicable(const GemmBatch<T>& g) {
  return vendor_items_applicable<Space>(g);
}

/// One cuBLAS gemm per item, ordered on the space's stream.
template <class Space, class T>
void vendor_gemm_items(const Space& space, const GemmBatch<T>& g) {
#if defined(TFBENCH_IMPL_HAVE_CUBLAS)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value && cublas_type<T>()) {
    const cublasHandle_t h = cublas_handle(space);
    for (std::int64_t i = 0; i < g.count(); ++i) cublas_gemm_one(h, g, g.a.item(i), g.b.item(i), g.c.item(i));
    return;
  }
#endif
  (void)space;
  (void)g;
  throw std::logic_error("tfbench: no vendor per-item gemm on this execution space");
}

/// One cublas<t>gemmStridedBatched call for the whole batch.
template <class Space, class T>
void vendor_gemm_batched(const Space& space, const GemmBatch<T>& g) {
#if defined(TFBENCH_IMPL_HAVE_CUBLAS)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value && cublas_type<T>()) {
    const cublasHandle_t h = cublas_handle(space);
    const int lda = cublas_ld(g.a.rows, g.a.cs), ldb = cublas_ld(g.b.rows, g.b.cs),
              ldc = cublas_ld(g.c.rows, g.c.cs);
    const int count = static_cast<int>(g.count());
    if constexpr (std::is_same<T, double>::value) {
      check_cublas(
          cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(), &g.alpha, g.a.data, lda,
                                    g.a.bs, g.b.data, ldb, g.b.bs, &g.beta, g.c.data, ldc, g.c.bs, count),
          "cublasDgemmStridedBatched");
    } else if constexpr (std::is_same<T, float>::value) {
      check_cublas(
          cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(), &g.alpha, g.a.data, lda,
                                    g.a.bs, g.b.data, ldb, g.b.bs, &g.beta, g.c.data, ldc, g.c.bs, count),
          "cublasSgemmStridedBatched");
    } else {
      check_cublas(
          cublasZgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m(), g.n(), g.k(),
                                    reinterpret_cast<const cuDoubleComplex*>(&g.alpha),
                                    reinterpret_cast<const cuDoubleComplex*>(g.a.data), lda, g.a.bs,
                                    reinterpret_cast<const cuDoubleComplex*>(g.b.data), ldb, g.b.bs,
                                    reinterpret_cast<const cuDoubleComplex*>(&g.beta),
                                    reinterpret_cast<cuDoubleComplex*>(g.c.data), ldc, g.c.bs, count),
          "cublasZgemmStridedBatched");
    }
    return;
  }
#endif
  (void)space;
  (void)g;
  throw std::logic_error("tfbench: no whole-batch vendor gemm on this execution space");
}

}  // namespace tfbench::impl::batched
