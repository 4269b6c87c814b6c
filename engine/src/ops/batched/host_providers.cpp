// Host item providers: libxsmm kernel dispatch (with a per-thread cache), the cblas per-item loop and
// the LAPACK getrf/getrs per-item loop.

#define LAPACK_COMPLEX_CPP  // lapack_complex_double is std::complex<double>, layout-equal to Kokkos's
#include "host_providers.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <complex>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <vector>

#include "specialized_solve.hpp"

#if defined(TFBENCH_HAVE_LIBXSMM)
#include <libxsmm.h>
#endif

namespace tfbench::impl::batched {

bool libxsmm_compiled() {
#if defined(TFBENCH_HAVE_LIBXSMM)
  return true;
#else
  return false;
#endif
}

namespace {

#if defined(TFBENCH_HAVE_LIBXSMM)
void ensure_libxsmm() {
  static std::once_flag once;
  std::call_once(once, [] { libxsmm_init(); });
}

/// A small direct-mapped per-thread cache in front of libxsmm's registry: repeated operations of one
/// shape pay a hash of a few integers, no lock and no registry lookup.
struct XsmmKey {
  int m = -1, n = -1, k = -1;
  std::ptrdiff_t lda = 0, ldb = 0, ldc = 0;
  int precision = 0;  // 1 double, 2 float
  bool beta_zero = false;
  bool prefetch = false;
  bool stream_c = false;
  bool operator==(const XsmmKey& o) const {
    return m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb && ldc == o.ldc &&
           precision == o.precision && beta_zero == o.beta_zero && prefetch == o.prefetch &&
           stream_c == o.stream_c;
  }
};

struct XsmmSlot {
  XsmmKey key;
  void* kernel = nullptr;
};

constexpr std::size_t xsmm_cache_slots = 16;

template <class T>
void* dispatch_cached(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb, std::ptrdiff_t ldc,
                      bool beta_zero, bool prefetch, bool stream_c) {
  const XsmmKey key{m,         n,        k,       lda, ldb, ldc, std::is_same<T, double>::value ? 1 : 2,
                    beta_zero, prefetch, stream_c};
  thread_local XsmmSlot slots[xsmm_cache_slots];
  const std::size_t h =
      (std::size_t(m) * 73856093u ^ std::size_t(n) * 19349663u ^ std::size_t(k) * 83492791u ^
       std::size_t(lda + 3 * ldb + 7 * ldc) ^ (std::size_t(key.precision) << 3) ^ std::size_t(beta_zero) ^
       (std::size_t(prefetch) << 1) ^ (std::size_t(stream_c) << 2)) %
      xsmm_cache_slots;
  XsmmSlot& slot = slots[h];
  if (slot.kernel != nullptr && slot.key == key) return slot.kernel;
  ensure_libxsmm();
  const libxsmm_blasint lm = m, ln = n, lk = k, la = lda, lb = ldb, lc = ldc;
  const int prefetch_kind = prefetch ? LIBXSMM_PREFETCH_AUTO : LIBXSMM_PREFETCH_NONE;
  const int flags = LIBXSMM_GEMM_FLAG_NONE | (beta_zero ? LIBXSMM_GEMM_FLAG_BETA_0 : 0) |
                    (stream_c ? LIBXSMM_GEMM_FLAG_ALIGN_C_NTS_HINT : 0);
  void* kernel = nullptr;
  if constexpr (std::is_same<T, double>::value) {
    const double alpha = 1.0, beta = beta_zero ? 0.0 : 1.0;
    kernel = reinterpret_cast<void*>(
        libxsmm_dmmdispatch(lm, ln, lk, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch_kind));
  } else {
    const float alpha = 1.0f, beta = beta_zero ? 0.0f : 1.0f;
    kernel = reinterpret_cast<void*>(
        libxsmm_smmdispatch(lm, ln, lk, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch_kind));
  }
  if (kernel != nullptr) slot = XsmmSlot{key, kernel};
  return kernel;
}
#endif

template <class T>
XsmmKernel<T> libxsmm_kernel_impl(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb,
                                  std::ptrdiff_t ldc, T alpha, T beta, bool prefetch, bool stream_c) {
#if defined(TFBENCH_HAVE_LIBXSMM)
  const bool fits = m > 0 && n > 0 && k > 0 && lda >= m && ldb >= k && ldc >= m && lda <= INT32_MAX &&
                    ldb <= INT32_MAX && ldc <= INT32_MAX;
  if (!fits || alpha != T(1) || !(beta == T(0) || beta == T(1))) return nullptr;
  return reinterpret_cast<XsmmKernel<T>>(
      dispatch_cached<T>(m, n, k, lda, ldb, ldc, beta == T(0), prefetch, stream_c && beta == T(0)));
#else
  (void)m, (void)n, (void)k, (void)lda, (void)ldb, (void)ldc, (void)alpha, (void)beta, (void)prefetch,
      (void)stream_c;
  return nullptr;
#endif
}

}  // namespace

XsmmKernel<double> libxsmm_kernel(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb,
                                  std::ptrdiff_t ldc, double alpha, double beta, bool prefetch,
                                  bool stream_c) {
  return libxsmm_kernel_impl<double>(m, n, k, lda, ldb, ldc, alpha, beta, prefetch, stream_c);
}
XsmmKernel<float> libxsmm_kernel(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb,
                                 std::ptrdiff_t ldc, float alpha, float beta, bool prefetch, bool stream_c) {
  return libxsmm_kernel_impl<float>(m, n, k, lda, ldb, ldc, alpha, beta, prefetch, stream_c);
}

namespace {

/// An operand as BLAS sees it: column-major with a leading dimension, or the transpose of one.
struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int ld;
};

template <class T>
BlasOperand blas_operand(const ItemBatch<const T>& x) {
  if (x.rs == 1 && (x.cols <= 1 || x.cs >= x.rows)) {
    const std::ptrdiff_t ld = x.cols <= 1 ? (x.rows > 0 ? x.rows : 1) : x.cs;
    return {CblasNoTrans, static_cast<int>(ld > 0 ? ld : 1)};
  }
  const std::ptrdiff_t ld = x.rows <= 1 ? (x.cols > 0 ? x.cols : 1) : x.rs;  // row-major: transpose
  return {CblasTrans, static_cast<int>(ld > 0 ? ld : 1)};
}

template <class T>
void cblas_gemm_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const T& alpha, const T* a,
                     int lda, const T* b, int ldb, const T& beta, T* c, int ldc) {
  if constexpr (std::is_same<T, double>::value) {
    cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (std::is_same<T, float>::value) {
    cblas_sgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    cblas_zgemm(CblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
}

CBLAS_TRANSPOSE flip(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? CblasTrans : CblasNoTrans;
}

}  // namespace

template <class T>
void blas_gemm_items(const GemmBatch<T>& g) {
  const BlasOperand a = blas_operand(g.a), b = blas_operand(g.b);
  const BlasOperand c = blas_operand(ItemBatch<const T>(g.c));
  for (std::int64_t i = 0; i < g.count(); ++i) {
    if (c.trans == CblasNoTrans) {
      cblas_gemm_call<T>(a.trans, b.trans, g.m(), g.n(), g.k(), g.alpha, g.a.item(i), a.ld, g.b.item(i), b.ld,
                         g.beta, g.c.item(i), c.ld);
    } else {  // a row-major C: compute C^T = B^T A^T into its column-major transpose
      cblas_gemm_call<T>(flip(b.trans), flip(a.trans), g.n(), g.m(), g.k(), g.alpha, g.b.item(i), b.ld,
                         g.a.item(i), a.ld, g.beta, g.c.item(i), c.ld);
    }
  }
}

namespace {

template <class T>
lapack_int getrf(lapack_int n, T* a, lapack_int* ipiv) {
  if constexpr (std::is_same<T, double>::value) {
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
  } else if constexpr (std::is_same<T, float>::value) {
    return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
  } else {
    return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_double*>(a), n, ipiv);
  }
}

template <class T>
lapack_int getrs(lapack_int n, lapack_int nrhs, const T* a, const lapack_int* ipiv, T* x, lapack_int ldx) {
  if constexpr (std::is_same<T, double>::value) {
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, x, ldx);
  } else if constexpr (std::is_same<T, float>::value) {
    return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, x, ldx);
  } else {
    return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs,
                               reinterpret_cast<const lapack_complex_double*>(a), n, ipiv,
                               reinterpret_cast<lapack_complex_double*>(x), ldx);
  }
}

}  // namespace

template <class T>
SingularItems lapack_solve_items(const SolveBatch<T>& s) {
  SingularItems singular;
  const int n = s.n(), nrhs = s.nrhs();
  std::vector<T> factor(std::size_t(n) * n);
  std::vector<lapack_int> ipiv(n);
  const bool direct_x = s.x.rs == 1 && s.x.cs >= n;  // X columns contiguous: solve in place
  std::vector<T> xbuf(direct_x ? 0 : std::size_t(n) * nrhs);
  for (std::int64_t item = 0; item < s.count(); ++item) {
    const T* a = s.a.item(item);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) factor[i + std::size_t(j) * n] = a[i * s.a.rs + j * s.a.cs];
    T* x = s.x.item(item);
    T* work = direct_x ? x : xbuf.data();
    const std::ptrdiff_t wrs = 1, wcs = direct_x ? s.x.cs : n;
    copy_rhs(n, nrhs, s.b.item(item), s.b.rs, s.b.cs, work, wrs, wcs);
    if (getrf<T>(n, factor.data(), ipiv.data()) != 0) {  // info > 0: exactly singular U
      singular.add(item);
      continue;
    }
    getrs<T>(n, nrhs, factor.data(), ipiv.data(), work, static_cast<lapack_int>(wcs));
    if (!direct_x) copy_rhs(n, nrhs, static_cast<const T*>(work), wrs, wcs, x, s.x.rs, s.x.cs);
  }
  return singular;
}

#define TFBENCH_INSTANTIATE_HOST_PROVIDERS(T)              \
  template void blas_gemm_items<T>(const GemmBatch<T>& g); \
  template SingularItems lapack_solve_items<T>(const SolveBatch<T>& s);
TFBENCH_INSTANTIATE_HOST_PROVIDERS(double)
TFBENCH_INSTANTIATE_HOST_PROVIDERS(float)
TFBENCH_INSTANTIATE_HOST_PROVIDERS(Kokkos::complex<double>)
#undef TFBENCH_INSTANTIATE_HOST_PROVIDERS

}  // namespace tfbench::impl::batched
