#pragma once
// f64 2 x 2, 4 x 4 and 8 x 8 packed items in 256-bit vectors: the kernels of AVX2 + FMA hosts, and on
// AVX-512 hosts the alternative a route may choose (ItemsRoute::narrow) to the 512-bit ones
// (pair_items_avx512.hpp, column_pairs_4x4_avx512.hpp, columns_8x8_avx512.hpp). Which is faster depends
// on the core, not the ISA: on the Zen 4 VM (2026-12-06, 1 thread, standalone loop, best of 400x20
// calls) the 4 x 4 kernel here took 12-14 cycles an item against the column pairs' 15-16, in the L1
// (64 items) and the L2 (512), where Zen 4 runs each 512-bit permute and FMA as two 256-bit halves;
// on Zen 5 the column pairs took 1.11 us for 512 items. `tfbench tune` measures both.
//
// Why: on the Zen 2 VM (2026-12-05, 1 thread, 512 items in the L2) the portable kernels took about
// 5 cycles a 2 x 2 item and 19 a 4 x 4 one. GCC 12 builds the flat 2 x 2 kernel's operands with four
// lane permutes an item, two of them across lanes (vpermpd); here A's columns come from two 128-bit
// broadcast loads and B's factors are two in-lane permutes of its load (a duplicate and a vpermilpd). In the
// 4 x 4 register tile GCC folds A's loads into every FMA, reading A once per column of C (32 loads an item
// for 16 FMAs); here A's four columns are loaded once and each element of B broadcast from memory (20 loads).
//
// 8 x 8 (2026-12-06, same VM, 1 thread, 64-byte aligned items): the portable register tiles (8 x 6, then
// 8 x 2) ran 31 ns an item in the L1 and 32-33 ns for 512 items (in the LLC: 768 KiB), libxsmm's kernel
// 30-31 and 30-34. The 8 x 2 tile has four accumulators, eight dependent FMAs each: 40 cycles of FMA
// latency for 16 cycles of issue. Here its k loop runs as two interleaved halves (even and odd p, eight
// accumulators, added at the end): 24 ns in the L1 (1.26x libxsmm), 1.08-1.16x libxsmm for 512 items.
// Sweeping the 512 items both ways (sweep_order.hpp) made that 1.03-1.11x: not done for 8 x 8.
//
// Column-major items: A = (a00, a10, a01, a11), likewise B and C; then
//   C = (a00, a10, a00, a10) * (b00, b00, b01, b01) + (a01, a11, a01, a11) * (b10, b10, b11, b11).

#if defined(__AVX2__) && defined(__FMA__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#include "sweep_order.hpp"

#define TFBENCH_IMPL_SMALL_ITEMS_AVX2 1

namespace tfbench::impl::batched {

/// Stores alpha t (+ beta c unless BetaZero) to the four elements at c.
template <bool BetaZero>
inline void store_scaled_f64x4(double* c, __m256d t, const double alpha, const double beta) {
  if (alpha != 1.0) t = _mm256_mul_pd(_mm256_set1_pd(alpha), t);
  if constexpr (!BetaZero) t = _mm256_fmadd_pd(_mm256_set1_pd(beta), _mm256_loadu_pd(c), t);
  _mm256_storeu_pd(c, t);
}

/// C = alpha A B (+ beta C unless BetaZero) for one compact f64 2 x 2 item.
template <bool BetaZero>
inline void gemm_2x2_f64_avx2(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  const __m256d a0 = _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(a));      // column 0, twice
  const __m256d a1 = _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(a + 2));  // column 1, twice
  const __m256d bv = _mm256_loadu_pd(b);
  const __m256d b0 = _mm256_movedup_pd(bv);       // (b00, b00, b01, b01)
  const __m256d b1 = _mm256_permute_pd(bv, 0xF);  // (b10, b10, b11, b11)
  store_scaled_f64x4<BetaZero>(c, _mm256_fmadd_pd(a1, b1, _mm256_mul_pd(a0, b0)), alpha, beta);
}

/// C = alpha A B (+ beta C unless BetaZero) for one compact f64 4 x 4 item: each column of C is A's
/// columns times broadcasts of B's column, summed in order of p (as the register tile does).
template <bool BetaZero>
inline void gemm_4x4_f64_avx2(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  const __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4), a2 = _mm256_loadu_pd(a + 8),
                a3 = _mm256_loadu_pd(a + 12);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const double* bj = b + 4 * j;
    __m256d t = _mm256_mul_pd(a0, _mm256_broadcast_sd(bj));
    t = _mm256_fmadd_pd(a1, _mm256_broadcast_sd(bj + 1), t);
    t = _mm256_fmadd_pd(a2, _mm256_broadcast_sd(bj + 2), t);
    t = _mm256_fmadd_pd(a3, _mm256_broadcast_sd(bj + 3), t);
    store_scaled_f64x4<BetaZero>(c + 4 * j, t, alpha, beta);
  }
}

/// Columns [J0, J0 + NB) of one compact f64 8 x 8 item: for each p, A's column p (two vectors) times
/// broadcasts of B's row p, into 2 NB accumulators. Split: the p loop as two interleaved halves, even
/// and odd p, into twice the accumulators, added at the end (for a tile too narrow to hide the FMA
/// latency: see the top of this file).
template <int J0, int NB, bool Split, bool BetaZero>
inline void gemm_8x8_f64_avx2_columns(const double alpha, const double* a, const double* b, const double beta,
                                      double* c) {
  constexpr int kHalves = Split ? 2 : 1;
  __m256d acc[kHalves][NB][2];
  for (int h = 0; h < kHalves; ++h)
    for (int j = 0; j < NB; ++j) acc[h][j][0] = acc[h][j][1] = _mm256_setzero_pd();
#pragma GCC unroll 8
  for (int p = 0; p < 8; p += kHalves) {
#pragma GCC unroll 2
    for (int h = 0; h < kHalves; ++h) {
      const __m256d a_top = _mm256_loadu_pd(a + 8 * (p + h)), a_bottom = _mm256_loadu_pd(a + 8 * (p + h) + 4);
#pragma GCC unroll 6
      for (int j = 0; j < NB; ++j) {
        const __m256d bpj = _mm256_broadcast_sd(b + p + h + 8 * (J0 + j));
        acc[h][j][0] = _mm256_fmadd_pd(a_top, bpj, acc[h][j][0]);
        acc[h][j][1] = _mm256_fmadd_pd(a_bottom, bpj, acc[h][j][1]);
      }
    }
  }
#pragma GCC unroll 6
  for (int j = 0; j < NB; ++j) {
    __m256d top = acc[0][j][0], bottom = acc[0][j][1];
    if constexpr (Split) {
      top = _mm256_add_pd(top, acc[1][j][0]);
      bottom = _mm256_add_pd(bottom, acc[1][j][1]);
    }
    store_scaled_f64x4<BetaZero>(c + 8 * (J0 + j), top, alpha, beta);
    store_scaled_f64x4<BetaZero>(c + 8 * (J0 + j) + 4, bottom, alpha, beta);
  }
}

/// C = alpha A B (+ beta C unless BetaZero) for one compact f64 8 x 8 item: columns 0-5 as one 8 x 6
/// tile (12 accumulators, A's column loaded once for six broadcasts), columns 6-7 with the p loop split.
template <bool BetaZero>
inline void gemm_8x8_f64_avx2(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  gemm_8x8_f64_avx2_columns<0, 6, false, BetaZero>(alpha, a, b, beta, c);
  gemm_8x8_f64_avx2_columns<6, 2, true, BetaZero>(alpha, a, b, beta, c);
}

/// Whether an f64 N x N compact item has a kernel here.
constexpr bool has_small_item_avx2(const int n) {
  return n == 2 || n == 4 || n == 8;
}

/// One compact f64 N x N item (N = 2, 4 or 8).
template <int N, bool BetaZero>
inline void gemm_small_f64_avx2_item(const double alpha, const double* a, const double* b, const double beta,
                                     double* c) {
  static_assert(has_small_item_avx2(N), "AVX2 kernels of 2 x 2, 4 x 4 and 8 x 8 items");
  if constexpr (N == 2) {
    gemm_2x2_f64_avx2<BetaZero>(alpha, a, b, beta, c);
  } else if constexpr (N == 4) {
    gemm_4x4_f64_avx2<BetaZero>(alpha, a, b, beta, c);
  } else {
    gemm_8x8_f64_avx2<BetaZero>(alpha, a, b, beta, c);
  }
}

/// Items [begin, end) of compact f64 N x N items (N = 2, 4 or 8), descending when `backward`
/// (sweep_order.hpp).
template <int N, bool BetaZero>
inline void gemm_small_f64_avx2_items(const double alpha, const double* a, const double* b, const double beta,
                                      double* c, const std::int64_t begin, const std::int64_t end,
                                      const bool backward) {
  const auto item = [&](const std::int64_t i) {
    const std::int64_t at = i * N * N;
    gemm_small_f64_avx2_item<N, BetaZero>(alpha, a + at, b + at, beta, c + at);
  };
  if constexpr (N == 2) {
    // Four items an iteration, in the sweep's order: the loop's own instructions were a fifth of an
    // item's (a standalone loop of 512 items sweeping both ways on Zen 2: 0.79 ns an item one at a
    // time, 0.79 two at a time, 0.70 four or eight at a time).
    constexpr std::int64_t kGroup = 4;
    std::int64_t i = backward ? end : begin;
    if (!backward) {
      for (; i + kGroup <= end; i += kGroup)
        for (std::int64_t u = 0; u < kGroup; ++u) item(i + u);
      for (; i < end; ++i) item(i);
    } else {
      for (; i - kGroup >= begin; i -= kGroup)
        for (std::int64_t u = 1; u <= kGroup; ++u) item(i - u);
      while (i-- > begin) item(i);
    }
  } else {
    for_items(begin, end, backward, item);
  }
}

}  // namespace tfbench::impl::batched
#endif
