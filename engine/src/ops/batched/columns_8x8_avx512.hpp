#pragma once
// f64 8 x 8 packed items with one 512-bit vector per column (host builds with AVX-512 only).
//
// Why: the register tile uses 32-byte vectors everywhere (two per column of an 8 x 8 item, 128
// 256-bit FMAs per item). Here each column of A and of C is one zmm register, B's elements are
// broadcast from memory: 64 FMAs per item and no shuffles. Measured on the Xeon VM (AVX-512, 1
// thread, medians of 301 runs, three rounds), in its first form (inner products, below): 1.08-1.15x
// libxsmm's JIT kernel for the same items, at 16, 64 and 512 items.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#include "sweep_order.hpp"

#define TFBENCH_IMPL_COLUMNS_8X8_AVX512 1

namespace tfbench::impl::batched {

/// C_i = alpha A_i B_i (+ beta C_i unless BetaZero) for items [begin, end) of compact column-major
/// f64 8 x 8 items, descending when `backward`: the items and, within each, its columns (sweep_order.hpp;
/// an item is 8 lines of each operand, and with its columns ascending in a descending sweep the
/// prefetchers fetched the lines past it, which the sweep had just left: 5-6% slower at 512 items in
/// the L2). The arithmetic of each column is the same either way.
template <bool BetaZero>
inline void gemm_8x8_f64_columns(const double alpha, const double* a, const double* b, const double beta,
                                 double* c, const std::int64_t begin, const std::int64_t end,
                                 const bool backward = false) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool scaled = alpha != 1.0;
  for_items(begin, end, backward, [&](const std::int64_t i, auto descending) {
    constexpr bool down = decltype(descending)::value;
    const double* ai = a + 64 * i;
    const double* bi = b + 64 * i;
    double* ci = c + 64 * i;
    // The outer product of A's column p and B's row p into the eight columns of C, p ascending in
    // either sweep (the same sums, bit for bit): eight independent accumulators, one FMA each a
    // step, in the order the inner products of the first form had. Those ran column by column, eight
    // dependent FMAs each, 0-3% slower at 512 items in the L2 and 2-4.5% at 64 (Zen 4, 2026-12-07,
    // standalone, the two interleaved, best of 2000, three runs).
    __m512d col[8], acc[8];
    for (int q = 0; q < 8; ++q) {
      const int p = down ? 7 - q : q;
      col[p] = _mm512_loadu_pd(ai + 8 * p);
    }
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
      const int j = down ? 7 - q : q;
      acc[j] = _mm512_mul_pd(col[0], _mm512_set1_pd(bi[8 * j]));
    }
#pragma GCC unroll 7
    for (int p = 1; p < 8; ++p) {
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) {
        const int j = down ? 7 - q : q;
        acc[j] = _mm512_fmadd_pd(col[p], _mm512_set1_pd(bi[8 * j + p]), acc[j]);
      }
    }
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
      const int j = down ? 7 - q : q;
      __m512d t = acc[j];
      if (scaled) t = _mm512_mul_pd(va, t);
      if constexpr (!BetaZero) t = _mm512_fmadd_pd(vb, _mm512_loadu_pd(ci + 8 * j), t);
      _mm512_storeu_pd(ci + 8 * j, t);
    }
  });
}

}  // namespace tfbench::impl::batched
#endif
