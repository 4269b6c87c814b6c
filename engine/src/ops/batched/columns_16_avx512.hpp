#pragma once
// f64 N x N packed items, N a multiple of 16, in 16-row by 8-column blocks of C held as two 512-bit
// vectors per column (host builds with AVX-512 only).
//
// Why: the register tile's rows are at most two 32-byte vectors (8 f64), so a 16 x 16 item is four
// 8 x 14 / 8 x 2 tiles, each loading B's broadcasts again: one broadcast per FMA. A 16 x 8 block
// shares each broadcast between two FMAs (2 loads of A and 8 broadcasts per 16 FMAs) and keeps 16
// accumulators, enough to cover the FMA latency. Measured on the EPYC VM (Zen 5, 1 thread,
// standalone loop, best of 7 rounds): n = 16, 64 items (L2) 4.67 us against the tile's 6.76 and
// libxsmm's 4.77; 512 items (LLC) 52.5 against 65.3 and 53.0; n = 32, 128 items 89.5 against 105.9
// and 87.8. From DRAM libxsmm with its next-item prefetch stays ahead (n = 16: 1.1x; n = 32: 1.6x,
// the tile 2x), and Auto's tuning says so per class. Blocks of 32 rows by 4 columns for n = 32 ran
// 0.75x these in L1 and the column blocks outermost gained nothing.
//
// Software prefetch of the next item was tried and dropped (7086fa0, 2026-12-05, EPYC VM): one line
// of the next item's A, B and C per step of the block loops, into L1 (or L2, 1, 2 or 4 items ahead).
// Batches of 512 items started cold gained 1.35x from DRAM, but the rows that matter did not: the
// 256 MiB batch of 16 x 16 items in one call ran 9.0-10.3 ms without, 10.4-11.9 ms with (libxsmm's
// prefetching kernel 8.1-8.3); `tune` found it 3-10% slower in the LLC and never ahead beyond noise
// at n = 16 or 32, 1 or 2 threads. The hardware prefetchers already follow these sequential streams.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#define TFBENCH_IMPL_COLUMNS_16_AVX512 1

namespace tfbench::impl::batched {

/// C = alpha A B (+ beta C unless BetaZero) for one compact column-major f64 N x N item; `c` may be
/// a tile the caller streams to the item (the same arithmetic either way). Each element of C is
/// A(i,0) B(0,j) followed by one FMA per p in order.
template <int N, bool BetaZero>
inline void gemm_f64_16row_item(const double alpha, const double* a, const double* b, const double beta,
                                double* c) {
  static_assert(N % 16 == 0, "16-row blocks");
  const bool scaled = alpha != 1.0;
  for (int i0 = 0; i0 < N; i0 += 16) {
    for (int j0 = 0; j0 < N; j0 += 8) {
      const double* bj = b + j0 * N;
      __m512d lo[8], hi[8];  // rows i0..i0+7 and i0+8..i0+15 of columns j0..j0+7
      {
        const __m512d a0 = _mm512_loadu_pd(a + i0), a1 = _mm512_loadu_pd(a + i0 + 8);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          const __m512d bpj = _mm512_set1_pd(bj[j * N]);
          lo[j] = _mm512_mul_pd(a0, bpj);
          hi[j] = _mm512_mul_pd(a1, bpj);
        }
      }
#pragma GCC unroll 16
      for (int p = 1; p < N; ++p) {
        const __m512d a0 = _mm512_loadu_pd(a + p * N + i0), a1 = _mm512_loadu_pd(a + p * N + i0 + 8);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          const __m512d bpj = _mm512_set1_pd(bj[j * N + p]);
          lo[j] = _mm512_fmadd_pd(a0, bpj, lo[j]);
          hi[j] = _mm512_fmadd_pd(a1, bpj, hi[j]);
        }
      }
      const __m512d va = _mm512_set1_pd(alpha);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        double* cj = c + (j0 + j) * N + i0;
        __m512d l = lo[j], h = hi[j];
        if (scaled) l = _mm512_mul_pd(va, l), h = _mm512_mul_pd(va, h);
        if constexpr (!BetaZero) {
          const __m512d vb = _mm512_set1_pd(beta);
          l = _mm512_fmadd_pd(vb, _mm512_loadu_pd(cj), l);
          h = _mm512_fmadd_pd(vb, _mm512_loadu_pd(cj + 8), h);
        }
        _mm512_storeu_pd(cj, l);
        _mm512_storeu_pd(cj + 8, h);
      }
    }
  }
}

/// Items [begin, end) of compact column-major f64 N x N items.
template <int N, bool BetaZero>
inline void gemm_f64_16row_items(const double alpha, const double* a, const double* b, const double beta,
                                 double* c, std::int64_t begin, const std::int64_t end) {
  constexpr std::int64_t size = std::int64_t(N) * N;
  for (std::int64_t i = begin; i < end; ++i)
    gemm_f64_16row_item<N, BetaZero>(alpha, a + size * i, b + size * i, beta, c + size * i);
}

}  // namespace tfbench::impl::batched
#endif
