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

/// C_i = alpha A_i B_i (+ beta C_i unless BetaZero) for items [begin, end) of compact f64 2 x 2
/// items, two per iteration; an odd last item goes through `single(i)`.
template <bool BetaZero, class Single>
inline void gemm_2x2_f64_pairs(const double alpha, const double* a, const double* b, const double beta,
                               double* c, std::int64_t begin, const std::int64_t end, const Single& single) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool scaled = alpha != 1.0;
  const __mmask8 all = 0xFF;
  for (; begin + 2 <= end; begin += 2) {
    const __m512d x = _mm512_loadu_pd(a + 4 * begin);
    const __m512d y = _mm512_loadu_pd(b + 4 * begin);
    // Zero-masking forms with a full mask: the same instructions, without the unmasked forms'
    // undefined-source temporaries that GCC 12 warns about (-Wmaybe-uninitialized).
    const __m512d x_swapped = _mm512_maskz_shuffle_f64x2(all, x, x, 0xB1);  // 128-bit blocks (1, 0, 3, 2)
    const __m512d y_0033 = _mm512_maskz_permute_pd(all, y, 0xCC);           // (0, 0, 3, 3) per 256-bit lane
    const __m512d y_1122 = _mm512_maskz_permute_pd(all, y, 0x33);           // (1, 1, 2, 2)
    __m512d t = _mm512_fmadd_pd(x_swapped, y_1122, _mm512_mul_pd(x, y_0033));
    if (scaled) t = _mm512_mul_pd(va, t);
    if constexpr (!BetaZero) t = _mm512_fmadd_pd(vb, _mm512_loadu_pd(c + 4 * begin), t);
    _mm512_storeu_pd(c + 4 * begin, t);
  }
  if (begin < end) single(begin);
}

}  // namespace tfbench::impl::batched
#endif
