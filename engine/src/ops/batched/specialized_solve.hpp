#pragma once
// tfbench's own batched LU + solve item kernels: Gaussian elimination with partial pivoting (the
// LAPACK getrf pivot rule: largest |re| + |im| in the column) applied to the right-hand sides as it
// goes, then back substitution. The item size is a template parameter for the common n (the factor
// lives in a local array the compiler can keep in L1 and vectorize over); a runtime-size kernel with
// the same arithmetic covers every other n. A zero (or non-finite) pivot marks the item singular.

#include <KokkosKernels_config.h>
#include <Kokkos_ArithTraits.hpp>
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "specialized_gemm.hpp"

namespace tfbench::impl::batched {

/// X_i = A_i^{-1} B_i with A [n, n], B and X [n, nrhs]. X may be B itself (an in-place solve).
template <class T>
struct SolveBatch {
  ItemBatch<const T> a;
  ItemBatch<const T> b;
  ItemBatch<T> x;
  int n() const { return a.rows; }
  int nrhs() const { return b.cols; }
  std::int64_t count() const { return a.count; }
};

/// Singular items of a chunk: the lowest index (INT64_MAX when none) and how many.
struct SingularItems {
  std::int64_t first = INT64_MAX;
  std::int64_t count = 0;
  KOKKOS_INLINE_FUNCTION void add(const std::int64_t item) {
    if (item < first) first = item;
    ++count;
  }
  KOKKOS_INLINE_FUNCTION void merge(const SingularItems& other) {
    if (other.first < first) first = other.first;
    count += other.count;
  }
};

// Kokkos Kernels 4.1 moved ArithTraits from Kokkos::Details to Kokkos (the old name is deprecated).
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40100
template <class T>
using arith_traits = Kokkos::ArithTraits<T>;
#else
template <class T>
using arith_traits = Kokkos::Details::ArithTraits<T>;
#endif

template <class T>
using magnitude_t = typename arith_traits<T>::mag_type;

/// |re| + |im| (LAPACK's cabs1): the pivot measure, cheaper than the modulus and just as good.
template <class T>
KOKKOS_INLINE_FUNCTION magnitude_t<T> abs1(const T& v) {
  if constexpr (std::is_floating_point<T>::value) {
    return v < T(0) ? -v : v;
  } else {
    using AT = arith_traits<T>;
    return arith_traits<magnitude_t<T>>::abs(AT::real(v)) + arith_traits<magnitude_t<T>>::abs(AT::imag(v));
  }
}

/// A usable pivot: non-zero and finite (NaN compares false).
template <class T>
KOKKOS_INLINE_FUNCTION bool usable_pivot(const magnitude_t<T> v) {
  return v > magnitude_t<T>(0) && v <= arith_traits<magnitude_t<T>>::max();
}

/// Copies item B into item X unless they are the same memory.
template <class T>
KOKKOS_INLINE_FUNCTION void copy_rhs(const int n, const int nrhs, const T* b, const std::ptrdiff_t brs,
                                     const std::ptrdiff_t bcs, T* x, const std::ptrdiff_t xrs,
                                     const std::ptrdiff_t xcs) {
  if (b == x && brs == xrs && bcs == xcs) return;
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < n; ++i) x[i * xrs + r * xcs] = b[i * brs + r * bcs];
}

/// Factors the compact column-major lu [n, n] in place with partial pivoting and applies the same
/// row operations to x, then solves U x = y. Returns false on a zero or non-finite pivot. N > 0 fixes
/// the size at compile time; N == 0 uses the runtime n.
template <class T, int N>
KOKKOS_INLINE_FUNCTION bool lu_solve_in_place(const int n_runtime, T* lu, const int nrhs, T* x,
                                              const std::ptrdiff_t xrs, const std::ptrdiff_t xcs) {
  const int n = N > 0 ? N : n_runtime;
  const int ld = n;
  for (int k = 0; k < n; ++k) {
    T* col_k = lu + k * ld;
    int p = k;
    magnitude_t<T> best = abs1(col_k[k]);
    for (int i = k + 1; i < n; ++i) {
      const magnitude_t<T> v = abs1(col_k[i]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!usable_pivot<T>(best)) return false;
    if (p != k) {
      for (int j = 0; j < n; ++j) {
        const T t = lu[k + j * ld];
        lu[k + j * ld] = lu[p + j * ld];
        lu[p + j * ld] = t;
      }
      for (int r = 0; r < nrhs; ++r) {
        const T t = x[k * xrs + r * xcs];
        x[k * xrs + r * xcs] = x[p * xrs + r * xcs];
        x[p * xrs + r * xcs] = t;
      }
    }
    const T inv = T(1) / col_k[k];
    TFBENCH_IMPL_SIMD
    for (int i = k + 1; i < n; ++i) col_k[i] *= inv;
    for (int j = k + 1; j < n; ++j) {
      T* col_j = lu + j * ld;
      const T f = col_j[k];
      TFBENCH_IMPL_SIMD
      for (int i = k + 1; i < n; ++i) col_j[i] -= col_k[i] * f;
    }
    for (int r = 0; r < nrhs; ++r) {
      T* xr = x + r * xcs;
      const T f = xr[k * xrs];
      TFBENCH_IMPL_SIMD
      for (int i = k + 1; i < n; ++i) xr[i * xrs] -= col_k[i] * f;
    }
  }
  for (int r = 0; r < nrhs; ++r) {
    T* xr = x + r * xcs;
    for (int k = n - 1; k >= 0; --k) {
      const T* col_k = lu + k * ld;
      const T xk = xr[k * xrs] / col_k[k];
      xr[k * xrs] = xk;
      TFBENCH_IMPL_SIMD
      for (int i = 0; i < k; ++i) xr[i * xrs] -= col_k[i] * xk;
    }
  }
  return true;
}

/// The largest n whose factor lives in a local array (larger n use the route's scratch).
constexpr int local_solve_max_n = 32;

/// Items [begin, end) with compile-time N (local factor) or runtime n (N == 0: local array when
/// n <= local_solve_max_n, else the lane's slice of `scratch`). UnitRowsX: X items have unit row stride.
template <class T, int N, bool UnitRowsX>
struct SpecializedSolveChunk {
  SolveBatch<T> s;
  T* scratch = nullptr;  // lanes * n * n elements, only for N == 0 and n > local_solve_max_n

  KOKKOS_INLINE_FUNCTION SingularItems operator()(const int lane, const std::int64_t begin,
                                                  const std::int64_t end) const {
    SingularItems singular;
    const int n = N > 0 ? N : s.a.rows;
    const int nrhs = s.b.cols;
    constexpr int local_n = N > 0 ? N : local_solve_max_n;
    T local[local_n * local_n];
    T* lu = (N > 0 || n <= local_solve_max_n) ? local : scratch + std::ptrdiff_t(lane) * n * n;
    const std::ptrdiff_t xrs = UnitRowsX ? 1 : s.x.rs;
    for (std::int64_t item = begin; item < end; ++item) {
      const T* a = s.a.item(item);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) lu[i + j * n] = a[i * s.a.rs + j * s.a.cs];
      T* x = s.x.item(item);
      copy_rhs(n, nrhs, s.b.item(item), s.b.rs, s.b.cs, x, xrs, s.x.cs);
      if (!lu_solve_in_place<T, N>(n, lu, nrhs, x, xrs, s.x.cs)) singular.add(item);
    }
    return singular;
  }
};

/// Small n (<= 8): every step of the factorization and of the solve is a separate template
/// instance, so every index is a compile-time constant and the factor, pivots and right-hand side
/// stay in registers (measured 1.0-1.5x KokkosBatched's non-pivoting LU at n = 2..8, which a loop
/// with variable bounds does not reach). Row exchanges test each candidate row against the pivot
/// instead of indexing with it, for the same reason.
template <class T, int N, int K>
KOKKOS_FORCEINLINE_FUNCTION bool small_factor_step(T* lu, int* piv, T* dinv) {
  if constexpr (K == N) {
    return true;
  } else {
    int p = K;
    magnitude_t<T> best = abs1(lu[K + K * N]);
    for (int i = K + 1; i < N; ++i) {
      const magnitude_t<T> v = abs1(lu[i + K * N]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (!usable_pivot<T>(best)) return false;
    piv[K] = p;
    for (int i = K + 1; i < N; ++i) {
      if (p == i) {
        for (int j = 0; j < N; ++j) {
          const T t = lu[K + j * N];
          lu[K + j * N] = lu[i + j * N];
          lu[i + j * N] = t;
        }
      }
    }
    const T inv = T(1) / lu[K + K * N];
    dinv[K] = inv;
    for (int i = K + 1; i < N; ++i) lu[i + K * N] *= inv;
    for (int j = K + 1; j < N; ++j) {
      const T f = lu[K + j * N];
      for (int i = K + 1; i < N; ++i) lu[i + j * N] -= lu[i + K * N] * f;
    }
    return small_factor_step<T, N, K + 1>(lu, piv, dinv);
  }
}

/// The row exchanges of the factorization, in order (LAPACK's laswp). They must all precede the
/// forward solve: the factor's rows were exchanged across all columns, so L is in final row order.
template <class T, int N, int K>
KOKKOS_FORCEINLINE_FUNCTION void small_permute_step(const int* piv, T* xv) {
  if constexpr (K < N) {
    const int p = piv[K];
    for (int i = K + 1; i < N; ++i) {
      if (p == i) {
        const T t = xv[K];
        xv[K] = xv[i];
        xv[i] = t;
      }
    }
    small_permute_step<T, N, K + 1>(piv, xv);
  }
}

/// Unit lower-triangular solve with L's multipliers below the diagonal.
template <class T, int N, int K>
KOKKOS_FORCEINLINE_FUNCTION void small_forward_step(const T* lu, T* xv) {
  if constexpr (K < N) {
    const T f = xv[K];
    for (int i = K + 1; i < N; ++i) xv[i] -= lu[i + K * N] * f;
    small_forward_step<T, N, K + 1>(lu, xv);
  }
}

template <class T, int N, int K>
KOKKOS_FORCEINLINE_FUNCTION void small_backward_step(const T* lu, const T* dinv, T* xv) {
  if constexpr (K >= 0) {
    const T xk = xv[K] * dinv[K];
    xv[K] = xk;
    for (int i = 0; i < K; ++i) xv[i] -= lu[i + K * N] * xk;
    small_backward_step<T, N, K - 1>(lu, dinv, xv);
  }
}

/// Items [begin, end) for a compile-time N <= 8. Packed: A, B and X compact (constant strides).
template <class T, int N, bool Packed>
struct SmallSolveChunk {
  SolveBatch<T> s;
  T* scratch = nullptr;  // unused: the factor is local

  KOKKOS_INLINE_FUNCTION SingularItems operator()(const int /*lane*/, const std::int64_t begin,
                                                  const std::int64_t end) const {
    SingularItems singular;
    const int nrhs = s.b.cols;
    const std::ptrdiff_t ars = Packed ? 1 : s.a.rs, acs = Packed ? N : s.a.cs;
    const std::ptrdiff_t brs = Packed ? 1 : s.b.rs, bcs = Packed ? N : s.b.cs;
    const std::ptrdiff_t xrs = Packed ? 1 : s.x.rs, xcs = Packed ? N : s.x.cs;
    for (std::int64_t item = begin; item < end; ++item) {
      T lu[N * N];
      int piv[N];
      T dinv[N];
      const T* a = Packed ? s.a.data + item * (N * N) : s.a.item(item);
      for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) lu[i + j * N] = a[i * ars + j * acs];
      if (!small_factor_step<T, N, 0>(lu, piv, dinv)) {
        singular.add(item);
        continue;
      }
      const T* b = Packed ? s.b.data + item * N * nrhs : s.b.item(item);
      T* x = Packed ? s.x.data + item * N * nrhs : s.x.item(item);
      for (int r = 0; r < nrhs; ++r) {
        T xv[N];
        for (int i = 0; i < N; ++i) xv[i] = b[i * brs + r * bcs];
        small_permute_step<T, N, 0>(piv, xv);
        small_forward_step<T, N, 0>(lu, xv);
        small_backward_step<T, N, N - 1>(lu, dinv, xv);
        for (int i = 0; i < N; ++i) x[i * xrs + r * xcs] = xv[i];
      }
    }
    return singular;
  }
};

/// The sizes with compile-time solve kernels (the GEMM kernel sizes).
KOKKOS_INLINE_FUNCTION constexpr bool has_fixed_solve(int n) {
  return is_specialized_size(n);
}

/// Calls f(chunk) with the specialized solve chunk for this batch (dispatched once per operation).
template <class T, class F>
decltype(auto) with_specialized_solve_chunk(const SolveBatch<T>& s, T* scratch, F&& f) {
  const bool unit = s.x.rs == 1;
  const bool packed = s.a.packed() && s.b.packed() && s.x.packed();
  auto by_size = [&](auto size_tag) {
    constexpr int S = decltype(size_tag)::value;
    if constexpr (S > 0 && S <= 8) {
      return packed ? f(SmallSolveChunk<T, S, true>{s, scratch})
                    : f(SmallSolveChunk<T, S, false>{s, scratch});
    } else {
      return unit ? f(SpecializedSolveChunk<T, S, true>{s, scratch})
                  : f(SpecializedSolveChunk<T, S, false>{s, scratch});
    }
  };
  return with_specialized_size(s.n(), by_size);
}

}  // namespace tfbench::impl::batched
