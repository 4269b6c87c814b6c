#pragma once
// f64 2 x 2 packed items two at a time in one 512-bit vector (host builds with AVX-512 only).
//
// Why: the compiler vectorizes the flat 2 x 2 kernel one item per 256-bit vector with four lane
// permutes per item (two of A, two of B), and the shuffle port, not the loads, bounds it. Here two
// items share a 512-bit vector and three permutes serve both: 1.5-2x the flat kernel on 512 items in
// L1 (Xeon, Emerald Rapids).
//
// Column-major items: A = (a00, a10, a01, a11), likewise B and C. With A' = A's two columns swapped,
//   C = A * (b00, b00, b11, b11) + A' * (b10, b10, b01, b01),
// and both factors of B are in-lane permutes of it.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#define TFBENCH_IMPL_PAIR_ITEMS_AVX512 1

namespace tfbench::impl::batched {

/// Two items' C (or one item's in the low half): x and y hold the items' A and B, c_old their C
/// where !BetaZero.
template <bool BetaZero>
inline __m512d gemm_2x2_f64_product(const __m512d x, const __m512d y, const double alpha, const double beta,
                                    const __m512d c_old) {
  // Zero-masking forms with a full mask: the same instructions, without the unmasked forms'
  // undefined-source temporaries that GCC 12 warns about (-Wmaybe-uninitialized).
  const __mmask8 all = 0xFF;
  const __m512d x_swapped = _mm512_maskz_shuffle_f64x2(all, x, x, 0xB1);  // 128-bit blocks (1, 0, 3, 2)
  const __m512d y_0033 = _mm512_maskz_permute_pd(all, y, 0xCC);           // (0, 0, 3, 3) per 256-bit lane
  const __m512d y_1122 = _mm512_maskz_permute_pd(all, y, 0x33);           // (1, 1, 2, 2)
  __m512d t = _mm512_fmadd_pd(x_swapped, y_1122, _mm512_mul_pd(x, y_0033));
  if (alpha != 1.0) t = _mm512_mul_pd(_mm512_set1_pd(alpha), t);
  if constexpr (!BetaZero) t = _mm512_fmadd_pd(_mm512_set1_pd(beta), c_old, t);
  return t;
}

/// C = alpha A B (+ beta C unless BetaZero) for one compact f64 2 x 2 item, with the pairs'
/// arithmetic (an odd last item, the streaming path's tile: every item's C agrees bit for bit). The
/// item is the low 256-bit half, whose lanes the product's permutes keep apart from the high half.
/// Plain 256-bit loads and stores, not masked 512-bit ones: a masked store does not forward to the
/// streaming path's reload of its tile, and that stall made streamed 2 x 2 batches 3.4x slower
/// (engine:sequential from DRAM, one thread, EPYC VM: 7.6 ms before, 26 ms with masked stores).
template <bool BetaZero>
inline void gemm_2x2_f64_item(const double alpha, const double* a, const double* b, const double beta,
                              double* c) {
  // Zero-masking insert and extract: the casts' undefined halves draw GCC 12's warning (see above).
  const auto half = [](const double* p) {
    return _mm512_maskz_insertf64x4(0xFF, _mm512_setzero_pd(), _mm256_loadu_pd(p), 0);
  };
  const __m512d c_old = BetaZero ? _mm512_setzero_pd() : half(c);
  const __m512d t = gemm_2x2_f64_product<BetaZero>(half(a), half(b), alpha, beta, c_old);
  _mm256_storeu_pd(c, _mm512_maskz_extractf64x4_pd(0x0F, t, 0));
}

/// C_i = alpha A_i B_i (+ beta C_i unless BetaZero) for items [begin, end) of compact f64 2 x 2
/// items, two per iteration (pairs from `begin` either way), the pairs descending when `backward`
/// (sweep_order.hpp).
template <bool BetaZero>
inline void gemm_2x2_f64_pairs(const double alpha, const double* a, const double* b, const double beta,
                               double* c, const std::int64_t begin, const std::int64_t end,
                               const bool backward = false) {
  const auto pair = [&](const std::int64_t i) {
    const __m512d c_old = BetaZero ? _mm512_setzero_pd() : _mm512_loadu_pd(c + 4 * i);
    _mm512_storeu_pd(c + 4 * i,
                     gemm_2x2_f64_product<BetaZero>(_mm512_loadu_pd(a + 4 * i), _mm512_loadu_pd(b + 4 * i),
                                                    alpha, beta, c_old));
  };
  const std::int64_t odd = (end - begin) % 2 ? end - 1 : end;  // the last item when the count is odd
  const auto last_odd = [&] {
    if (odd < end) gemm_2x2_f64_item<BetaZero>(alpha, a + 4 * odd, b + 4 * odd, beta, c + 4 * odd);
  };
  if (backward) {
    last_odd();
    for (std::int64_t i = odd; i - 2 >= begin; i -= 2) pair(i - 2);
  } else {
    for (std::int64_t i = begin; i + 2 <= odd; i += 2) pair(i);
    last_odd();
  }
}

}  // namespace tfbench::impl::batched
#endif
