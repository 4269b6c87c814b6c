#pragma once
// The portable KokkosBatched solve route: KokkosBatched::SerialLU + SerialSolveLU per item. Kokkos
// Kernels 3.4's batched LU does NOT pivot: it is only correct for matrices that need no row exchange
// (e.g. diagonally dominant ones), so this provider is selectable only when the caller declares that
// (Pivoting::None). A zero or non-finite diagonal of U marks the item singular.

#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Serial_Impl.hpp>
#include <KokkosBatched_SolveLU_Decl.hpp>
#include <KokkosBatched_Trsm_Decl.hpp>
#include <KokkosBatched_Trsm_Serial_Impl.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kokkosbatched_gemm.hpp"
#include "specialized_solve.hpp"

namespace tfbench::impl::batched {

template <class T>
bool kokkosbatched_applicable(const SolveBatch<T>& s) {
  return s.a.nonnegative_strides() && s.b.nonnegative_strides() && s.x.nonnegative_strides();
}

/// Items [begin, end): copy A_i into a lane-local factor (local array, or the lane's slice of
/// `scratch` for n > local_solve_max_n), copy B_i into X_i, SerialLU, check U's diagonal, SerialSolveLU.
template <class T, class MemSpace>
struct KokkosBatchedSolveChunk {
  SolveBatch<T> s;
  T* scratch = nullptr;

  KOKKOS_INLINE_FUNCTION SingularItems operator()(const int lane, const std::int64_t begin,
                                                  const std::int64_t end) const {
    using KokkosBatched::Algo;
    using KokkosBatched::Trans;
    using Factor = Kokkos::View<T**, Kokkos::LayoutLeft, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    SingularItems singular;
    const int n = s.a.rows;
    const int nrhs = s.b.cols;
    T local[local_solve_max_n * local_solve_max_n];
    T* w = n <= local_solve_max_n ? local : scratch + std::ptrdiff_t(lane) * n * n;
    const Factor lu(w, n, n);
    for (std::int64_t item = begin; item < end; ++item) {
      const T* a = s.a.item(item);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) w[i + j * n] = a[i * s.a.rs + j * s.a.cs];
      T* x = s.x.item(item);
      copy_rhs(n, nrhs, s.b.item(item), s.b.rs, s.b.cs, x, s.x.rs, s.x.cs);
      KokkosBatched::SerialLU<Algo::LU::Unblocked>::invoke(lu);
      bool ok = true;
      for (int i = 0; i < n; ++i) ok = ok && usable_pivot<T>(abs1(w[i + i * n]));
      if (!ok) {
        singular.add(item);
        continue;
      }
      const auto xv = item_view<T, MemSpace>(s.x, item);
      KokkosBatched::SerialSolveLU<Trans::NoTranspose, Algo::SolveLU::Unblocked>::invoke(lu, xv);
    }
    return singular;
  }
};

}  // namespace tfbench::impl::batched
