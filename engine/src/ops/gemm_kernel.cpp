// The contraction layer's one GEMM helper: compact column-major matrices through KokkosBlas::gemm
// (OpenBLAS through the BLAS TPL on host spaces). Replaced by the batched helper's ops::gemm facade
// once it lands; contractions call only run_gemm.

#include <KokkosBlas3_gemm.hpp>

#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl {
namespace {

template <class Space, class T>
void gemm_on(const Space&, char ta, char tb, index_t m, index_t n, index_t k, T alpha, const T* a, const T* b,
             T beta, T* c) {
  using Device = Kokkos::Device<Space, typename Space::memory_space>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using In = Kokkos::View<const T**, Kokkos::LayoutLeft, Device, Unmanaged>;
  using Out = Kokkos::View<T**, Kokkos::LayoutLeft, Device, Unmanaged>;
  const bool at = ta != 'N';
  const bool bt = tb != 'N';
  In av(a, at ? k : m, at ? m : k);
  In bv(b, bt ? n : k, bt ? k : n);
  Out cv(c, m, n);
  const char ta_s[2] = {ta, '\0'};
  const char tb_s[2] = {tb, '\0'};
  KokkosBlas::gemm(ta_s, tb_s, alpha, av, bv, beta, cv);
}

}  // namespace

template <class T>
void run_gemm(const ExecTarget& target, char trans_a, char trans_b, index_t m, index_t n, index_t k, T alpha,
              const T* a, const T* b, T beta, T* c) {
  if (m == 0 || n == 0) return;
  const index_t c_shape[2] = {m, n};
  const index_t c_strides[2] = {1, m};
  if (k == 0) {
    // KokkosBlas::gemm returns early on an empty inner dimension without touching C.
    if (beta == T(0)) return run_fill<T>(target, T(0), c_shape, 2, {c, c_strides});
    return run_unary<T>(target, UnaryKind::Scale, beta, c_shape, 2, {c, c_strides}, {c, c_strides});
  }
  dispatch_exec_space(kernel_space(target, m * n * k),
                      [&](auto space) { gemm_on(space, trans_a, trans_b, m, n, k, alpha, a, b, beta, c); });
}

template void run_gemm<float>(const ExecTarget&, char, char, index_t, index_t, index_t, float, const float*,
                              const float*, float, float*);
template void run_gemm<double>(const ExecTarget&, char, char, index_t, index_t, index_t, double,
                               const double*, const double*, double, double*);
template void run_gemm<Kokkos::complex<double>>(const ExecTarget&, char, char, index_t, index_t, index_t,
                                                Kokkos::complex<double>, const Kokkos::complex<double>*,
                                                const Kokkos::complex<double>*, Kokkos::complex<double>,
                                                Kokkos::complex<double>*);

}  // namespace tfbench::impl
