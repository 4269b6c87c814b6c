#pragma once
// f64 4 x 4 packed items two columns of C per 512-bit vector (host builds with AVX-512 only).
//
// Why: the register tile keeps one 256-bit vector per column of a 4 x 4 item: 16 FMAs, 16 broadcast
// loads of B and 4 stores per item. Here a column of A is loaded into both halves of a zmm
// (vbroadcastf64x4) and the two columns of B that share 64 contiguous bytes give, by one in-lane
// permute per k, (b_kj x4 | b_k,j+1 x4): 8 FMAs, 8 permutes and 2 stores per item. Measured on the
// EPYC VM (Zen 5, 1 thread, 512 items in L2, standalone loop, best of 200x50 calls): 1.11-1.14 us
// against the 256-bit tile's 1.67-1.79 us. Trading permutes for FMAs with a broadcast operand
// (masked halves, or a merged broadcast load) was slower at every mix (2026-12-05, same VM, 512
// items: 1.08 us with 8 permutes; 1.18 with 2 of them replaced, 1.32 with 4, 1.59 with none; 64
// items in L1 0.131 against 0.136-0.175): the kernel is not bound by its permutes alone.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#include "sweep_order.hpp"

#define TFBENCH_IMPL_COLUMN_PAIRS_4X4_AVX512 1

namespace tfbench::impl::batched {

/// C = alpha A B (+ beta C unless BetaZero) for one compact column-major f64 4 x 4 item; `c` may be a
/// tile the caller streams to the item (the same arithmetic either way, so both stores agree
/// bit for bit).
template <bool BetaZero>
inline void gemm_4x4_f64_item(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  // Zero-masking forms with a full mask: the same instructions, without the unmasked forms'
  // undefined-source temporaries that GCC 12 warns about (-Wmaybe-uninitialized).
  const __mmask8 all = 0xFF;
  __m512d col[4];  // (A(:,p) | A(:,p))
  for (int p = 0; p < 4; ++p) col[p] = _mm512_maskz_broadcast_f64x4(all, _mm256_loadu_pd(a + 4 * p));
  for (int h = 0; h < 2; ++h) {
    const __m512d pair = _mm512_loadu_pd(b + 8 * h);  // (B(:,2h) | B(:,2h+1))
    __m512d t = _mm512_mul_pd(col[0], _mm512_maskz_permutex_pd(all, pair, 0x00));
    t = _mm512_fmadd_pd(col[1], _mm512_maskz_permutex_pd(all, pair, 0x55), t);
    t = _mm512_fmadd_pd(col[2], _mm512_maskz_permutex_pd(all, pair, 0xAA), t);
    t = _mm512_fmadd_pd(col[3], _mm512_maskz_permutex_pd(all, pair, 0xFF), t);
    if (alpha != 1.0) t = _mm512_mul_pd(_mm512_set1_pd(alpha), t);
    if constexpr (!BetaZero) t = _mm512_fmadd_pd(_mm512_set1_pd(beta), _mm512_loadu_pd(c + 8 * h), t);
    _mm512_storeu_pd(c + 8 * h, t);
  }
}

/// The same for items [begin, end) of a batch of compact items, descending when `backward`.
template <bool BetaZero>
inline void gemm_4x4_f64_column_pairs(const double alpha, const double* a, const double* b, const double beta,
                                      double* c, const std::int64_t begin, const std::int64_t end,
                                      const bool backward = false) {
  for_items(begin, end, backward, [&](const std::int64_t i) {
    gemm_4x4_f64_item<BetaZero>(alpha, a + 16 * i, b + 16 * i, beta, c + 16 * i);
  });
}

}  // namespace tfbench::impl::batched
#endif
