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
// and 87.8. Blocks of 32 rows by 4 columns for n = 32 ran 0.75x these in L1 and the column blocks
// outermost gained nothing.
//
// Prefetching the next item (the route's prefetch): one line of its A, B and C per step of the
// block loops, so the item's lines arrive while this one computes. A batch from DRAM leaves the
// hardware prefetchers behind a core busy with FMAs: on the EPYC VM (Zen 5, 1 thread, 512 n = 16
// items of a 256 MiB sweep, standalone loop, 2026-12-05) 83-89 us against 113-123 without, libxsmm's
// prefetching kernel 83-94; in the LLC 1-3% slower than without. Whether a class gains is Auto's
// tuning's to measure.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#define TFBENCH_IMPL_COLUMNS_16_AVX512 1

namespace tfbench::impl::batched {

/// What the item kernel fetches of the next item while it computes one.
enum class NextItem {
  Nothing,
  Operands,      // A and B (C is streamed past the caches)
  OperandsAndC,  // A, B and C's lines, the latter for writing
};

/// The lines of the next item's operands, one of each per step of an item's block loops:
/// step t of `steps` fetches line t / (steps / lines) of each when it is the first step of its line.
template <int N, NextItem Next>
struct NextItemLines {
  static constexpr int lines = N * N * 8 / 64, steps = (N / 16) * (N / 8) * N, stride = steps / lines;
  static_assert(steps % lines == 0, "whole lines per step");
  const char *a, *b, *c;
  inline void fetch(const int step) const {
    if constexpr (Next != NextItem::Nothing) {
      if (step % stride != 0) return;
      const int offset = step / stride * 64;
      _mm_prefetch(a + offset, _MM_HINT_T0);
      _mm_prefetch(b + offset, _MM_HINT_T0);
      if constexpr (Next == NextItem::OperandsAndC) _mm_prefetch(c + offset, _MM_HINT_ET0);
    }
  }
};

/// C = alpha A B (+ beta C unless BetaZero) for one compact column-major f64 N x N item; `c` may be
/// a tile the caller streams to the item (the same arithmetic either way). Each element of C is
/// A(i,0) B(0,j) followed by one FMA per p in order. `next_*`: the item whose lines `Next` fetches.
template <int N, bool BetaZero, NextItem Next = NextItem::Nothing>
inline void gemm_f64_16row_item(const double alpha, const double* a, const double* b, const double beta,
                                double* c, const double* next_a = nullptr, const double* next_b = nullptr,
                                const double* next_c = nullptr) {
  static_assert(N % 16 == 0, "16-row blocks");
  const bool scaled = alpha != 1.0;
  const NextItemLines<N, Next> next{reinterpret_cast<const char*>(next_a),
                                    reinterpret_cast<const char*>(next_b),
                                    reinterpret_cast<const char*>(next_c)};
  int block = 0;
  for (int i0 = 0; i0 < N; i0 += 16) {
    for (int j0 = 0; j0 < N; j0 += 8, ++block) {
      const double* bj = b + j0 * N;
      __m512d lo[8], hi[8];  // rows i0..i0+7 and i0+8..i0+15 of columns j0..j0+7
      {
        const __m512d a0 = _mm512_loadu_pd(a + i0), a1 = _mm512_loadu_pd(a + i0 + 8);
        next.fetch(block * N);
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
        next.fetch(block * N + p);
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

/// Items [begin, end) of compact column-major f64 N x N items; with Prefetch each fetches the next
/// one's lines (the last its own: nothing beyond the range is touched).
template <int N, bool BetaZero, bool Prefetch = false>
inline void gemm_f64_16row_items(const double alpha, const double* a, const double* b, const double beta,
                                 double* c, std::int64_t begin, const std::int64_t end) {
  constexpr std::int64_t size = std::int64_t(N) * N;
  for (std::int64_t i = begin; i < end; ++i) {
    if constexpr (Prefetch) {
      const std::int64_t next = i + 1 < end ? i + 1 : i;
      gemm_f64_16row_item<N, BetaZero, NextItem::OperandsAndC>(alpha, a + size * i, b + size * i, beta,
                                                               c + size * i, a + size * next, b + size * next,
                                                               c + size * next);
    } else {
      gemm_f64_16row_item<N, BetaZero>(alpha, a + size * i, b + size * i, beta, c + size * i);
    }
  }
}

}  // namespace tfbench::impl::batched
#endif
