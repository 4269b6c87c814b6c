#pragma once
// f64 2 x 2 and 4 x 4 packed items on AVX2 + FMA hosts without AVX-512 (whose own kernels,
// pair_items_avx512.hpp and column_pairs_4x4_avx512.hpp, run there instead).
//
// Why: on the Zen 2 VM (2026-12-05, 1 thread, 512 items in the L2) the portable kernels took about
// 5 cycles a 2 x 2 item and 19 a 4 x 4 one. GCC 12 builds the flat 2 x 2 kernel's operands with four
// lane permutes an item, two of them across lanes (vpermpd); here A's columns come from two 128-bit
// broadcast loads and B's factors are two in-lane permutes of its load (a duplicate and a vpermilpd). In the
// 4 x 4 register tile GCC folds A's loads into every FMA, reading A once per column of C (32 loads an item
// for 16 FMAs); here A's four columns are loaded once and each element of B broadcast from memory (20 loads).
//
// Column-major items: A = (a00, a10, a01, a11), likewise B and C; then
//   C = (a00, a10, a00, a10) * (b00, b00, b01, b01) + (a01, a11, a01, a11) * (b10, b10, b11, b11).

#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__) && !defined(__CUDACC__) && \
    !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#include "sweep_order.hpp"

#define TFBENCH_IMPL_SMALL_ITEMS_AVX2 1

namespace tfbench::impl::batched {

/// C = alpha A B (+ beta C unless BetaZero) for one compact f64 2 x 2 item.
template <bool BetaZero>
inline void gemm_2x2_f64_avx2(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  const __m256d a0 = _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(a));      // column 0, twice
  const __m256d a1 = _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(a + 2));  // column 1, twice
  const __m256d bv = _mm256_loadu_pd(b);
  const __m256d b0 = _mm256_movedup_pd(bv);       // (b00, b00, b01, b01)
  const __m256d b1 = _mm256_permute_pd(bv, 0xF);  // (b10, b10, b11, b11)
  __m256d t = _mm256_fmadd_pd(a1, b1, _mm256_mul_pd(a0, b0));
  if (alpha != 1.0) t = _mm256_mul_pd(_mm256_set1_pd(alpha), t);
  if constexpr (!BetaZero) t = _mm256_fmadd_pd(_mm256_set1_pd(beta), _mm256_loadu_pd(c), t);
  _mm256_storeu_pd(c, t);
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
    if (alpha != 1.0) t = _mm256_mul_pd(_mm256_set1_pd(alpha), t);
    if constexpr (!BetaZero) t = _mm256_fmadd_pd(_mm256_set1_pd(beta), _mm256_loadu_pd(c + 4 * j), t);
    _mm256_storeu_pd(c + 4 * j, t);
  }
}

/// One compact f64 N x N item (N = 2 or 4).
template <int N, bool BetaZero>
inline void gemm_small_f64_avx2_item(const double alpha, const double* a, const double* b, const double beta,
                                     double* c) {
  static_assert(N == 2 || N == 4, "AVX2 kernels of 2 x 2 and 4 x 4 items");
  if constexpr (N == 2) {
    gemm_2x2_f64_avx2<BetaZero>(alpha, a, b, beta, c);
  } else {
    gemm_4x4_f64_avx2<BetaZero>(alpha, a, b, beta, c);
  }
}

/// Items [begin, end) of compact f64 N x N items (N = 2 or 4), descending when `backward`
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
