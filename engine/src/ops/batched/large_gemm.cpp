// Large GEMM through KokkosBlas::gemm (see impl/large_gemm.hpp).

#include "large_gemm.hpp"

#include <KokkosKernels_config.h>
#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#include <utility>

namespace tfbench::impl::batched {

namespace {

template <class T, class Space>
using LeftView = Kokkos::View<T**, Kokkos::LayoutLeft, Kokkos::Device<Space, typename Space::memory_space>,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// The column-major [rows, cols] matrix at p with leading dimension ld, as a LayoutLeft view whose
/// stride(1) is ld (the subview of a [ld, cols] view keeps LayoutLeft and its stride).
template <class T, class Space>
LeftView<T, Space> left_view(T* p, int rows, int cols, std::ptrdiff_t ld) {
  const LeftView<T, Space> full(p, static_cast<std::size_t>(ld < rows ? rows : ld),
                                static_cast<std::size_t>(cols));
  const auto sub = Kokkos::subview(full, std::make_pair(0, rows), Kokkos::ALL);
  static_assert(std::is_same<typename decltype(sub)::array_layout, Kokkos::LayoutLeft>::value,
                "a row-range subview of a LayoutLeft matrix must stay LayoutLeft (BLAS leading dimension)");
  return sub;
}

/// A BLAS-ready operand: a LayoutLeft view and its transpose flag ("N" or "T").
template <class T, class Space>
struct Operand {
  LeftView<T, Space> view;
  const char* trans;
};

template <class Space, class T>
Kokkos::View<std::remove_const_t<T>*, typename Space::memory_space> pack(const Space& space,
                                                                         const ItemBatch<T>& x) {
  using U = std::remove_const_t<T>;
  Kokkos::View<U*, typename Space::memory_space> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tfbench::engine::ops::gemm::packed_operand"),
      std::size_t(x.rows) * x.cols);
  U* dst = out.data();
  const T* src = x.data;
  const int rows = x.rows;
  const std::ptrdiff_t rs = x.rs, cs = x.cs;
  Kokkos::parallel_for(
      "tfbench::engine::ops::gemm::pack",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2, Kokkos::Iterate::Left>>(space, {0, 0}, {x.rows, x.cols}),
      KOKKOS_LAMBDA(const int i, const int j) { dst[i + std::ptrdiff_t(j) * rows] = src[i * rs + j * cs]; });
  return out;
}

template <class Space, class T>
Operand<const T, Space> operand(const Space& space, const ItemBatch<const T>& x,
                                Kokkos::View<T*, typename Space::memory_space>& scratch, bool& packed) {
  switch (blas_form(x)) {
    case BlasForm::ColMajor:
      return {left_view<const T, Space>(x.data, x.rows, x.cols, x.cols <= 1 ? x.rows : x.cs), "N"};
    case BlasForm::RowMajor:  // the transpose of a column-major [cols, rows] matrix
      return {left_view<const T, Space>(x.data, x.cols, x.rows, x.rows <= 1 ? x.cols : x.rs), "T"};
    case BlasForm::General:
      break;
  }
  scratch = pack(space, x);
  packed = true;
  return {left_view<const T, Space>(scratch.data(), x.rows, x.cols, x.rows), "N"};
}

template <class T>
ItemBatch<const T> transposed(const ItemBatch<const T>& x) {
  return {x.data, x.cols, x.rows, x.count, x.cs, x.rs, x.bs};
}

}  // namespace

template <class Space, class T>
LargeGemmTrace execute_large_gemm(const Space& space, T alpha, const ItemBatch<const T>& a0,
                                  const ItemBatch<const T>& b0, T beta, const ItemBatch<T>& c0) {
  using Mem = typename Space::memory_space;
  LargeGemmTrace trace;
  if (c0.rows == 0 || c0.cols == 0) return trace;
  ItemBatch<const T> a = a0, b = b0;
  ItemBatch<T> c = c0;
  // A row-major C is the column-major C^T = B^T A^T.
  if (blas_form(c) == BlasForm::RowMajor) {
    trace.transposed_c = true;
    a = transposed(b0);
    b = transposed(a0);
    c = {c0.data, c0.cols, c0.rows, c0.count, c0.cs, c0.rs, c0.bs};
  }
  Kokkos::View<T*, Mem> c_scratch;
  T* c_data = c.data;
  std::ptrdiff_t ldc = c.cols <= 1 ? c.rows : c.cs;
  if (blas_form(c) == BlasForm::General) {  // compute into compact scratch, copy back afterwards
    trace.packed_c = true;
    c_scratch = beta == T(0)
                    ? Kokkos::View<T*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                               "tfbench::engine::ops::gemm::packed_c"),
                                            std::size_t(c.rows) * c.cols)
                    : pack(space, ItemBatch<const T>(c));
    c_data = c_scratch.data();
    ldc = c.rows;
  }
  const int m = c.rows, n = c.cols, k = a.cols;
  if (k == 0) {  // KokkosBlas::gemm returns early for k == 0; BLAS semantics scale C by beta
    const std::ptrdiff_t ld = ldc;
    T* p = c_data;
    Kokkos::parallel_for(
        "tfbench::engine::ops::gemm::scale_c",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2, Kokkos::Iterate::Left>>(space, {0, 0}, {m, n}),
        KOKKOS_LAMBDA(const int i, const int j) {
          T& v = p[i + j * ld];
          v = beta == T(0) ? T(0) : beta * v;
        });
  } else {
    Kokkos::View<T*, Mem> a_scratch, b_scratch;
    const auto av = operand(space, a, a_scratch, trace.packed_a);
    const auto bv = operand(space, b, b_scratch, trace.packed_b);
    const auto cv = left_view<T, Space>(c_data, m, n, ldc);
    // On the operation's own instance where Kokkos Kernels takes one (4.x): its instance-less overload
    // default-constructs the space, which allocates on Kokkos 4.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
    KokkosBlas::gemm(space, av.trans, bv.trans, alpha, av.view, bv.view, beta, cv);
#else
    KokkosBlas::gemm(av.trans, bv.trans, alpha, av.view, bv.view, beta, cv);
#endif
  }
  if (trace.packed_c) {
    const T* src = c_scratch.data();
    T* dst = c.data;
    const std::ptrdiff_t rs = c.rs, cs = c.cs;
    Kokkos::parallel_for(
        "tfbench::engine::ops::gemm::unpack_c",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2, Kokkos::Iterate::Left>>(space, {0, 0}, {m, n}),
        KOKKOS_LAMBDA(const int i, const int j) { dst[i * rs + j * cs] = src[i + std::ptrdiff_t(j) * m]; });
  }
  space.fence();
  return trace;
}

#define TFBENCH_LARGE_GEMM_INSTANTIATE(Space, T)                                                   \
  template LargeGemmTrace execute_large_gemm<Space, T>(const Space&, T, const ItemBatch<const T>&, \
                                                       const ItemBatch<const T>&, T, const ItemBatch<T>&);
#define TFBENCH_LARGE_GEMM_INSTANTIATE_TYPES(Space) \
  TFBENCH_LARGE_GEMM_INSTANTIATE(Space, double)     \
  TFBENCH_LARGE_GEMM_INSTANTIATE(Space, float)      \
  TFBENCH_LARGE_GEMM_INSTANTIATE(Space, Kokkos::complex<double>)
#if defined(KOKKOS_ENABLE_SERIAL)
TFBENCH_LARGE_GEMM_INSTANTIATE_TYPES(Kokkos::Serial)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
TFBENCH_LARGE_GEMM_INSTANTIATE_TYPES(Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
TFBENCH_LARGE_GEMM_INSTANTIATE_TYPES(Kokkos::Cuda)
#endif

}  // namespace tfbench::impl::batched
