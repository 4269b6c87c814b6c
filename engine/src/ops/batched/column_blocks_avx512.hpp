#pragma once
// f64 N x N packed items, N = 16 or 32, in blocks of whole columns of C (every row of the block's
// columns) held as 512-bit vectors (host builds with AVX-512 only): n = 16 in two blocks of 8
// columns (16 accumulators), n = 32 in six blocks of 5 columns and one of 2 (20 accumulators).
//
// Why: the register tile's rows are at most two 32-byte vectors (8 f64), so a 16 x 16 item is four
// 8 x 14 / 8 x 2 tiles, each loading B's broadcasts again: one broadcast per FMA. A 16 x 8 block
// shares each broadcast between two FMAs (2 loads of A and 8 broadcasts per 16 FMAs) and keeps 16
// accumulators, enough to cover the FMA latency. Measured on the EPYC VM (Zen 5, 1 thread,
// standalone loop, best of 7 rounds): n = 16, 64 items (L2) 4.67 us against the tile's 6.76 and
// libxsmm's 4.77; 512 items (LLC) 52.5 against 65.3 and 53.0.
//
// n = 32 ran in 16 x 8 blocks too until 2026-12-05, reading every column of A in two halves: the
// same speed as libxsmm in the L2 but 1.1-1.25x slower in the LLC and 1.5-1.8x from DRAM, where the
// first block of an item touched every other pair of A's lines. Blocks of all 32 rows read A's
// columns whole and in order (standalone, 1 thread, best of 40 / 7 rounds, EPYC VM; the p loop
// unrolled 32 times there, 16 here: GCC 12 crashes compiling the 32-fold unroll in the engine):
//   block     L2 0.5 MiB   LLC 1.5 / 3 / 12 MiB      DRAM 256 MiB (10922 items, one call)
//   16 x 8    12.0 us      40.8 / 83.7-90.4 / 400    18.7-22.5 ms
//   32 x 4    16.6         49.0 / 97.8-104 / 450     14.8-16.5
//   32 x 5    12.1         38.9 / 80.7-87.8 / 348    10.4-12.7
//   32 x 6    12.4         39.1 / 80.5-87.2 / 352    10.6-12.9
//   32 x 7    14.4         42.6 / 88.2-95.3 / 382    11.8-15.4
//   libxsmm   12.2         38.0 / 76.0-80.1 / 347    13.0-14.5 (11.1-13.0 with its next-item prefetch)
// so 32 x 5 (+ 32 x 2). From DRAM its ratio to libxsmm's prefetching kernel moved from 0.91 to 1.11
// between processes (the physical pages drawn); `tune` (same process, interleaved) put it at 0.84x
// libxsmm from DRAM (the 16 x 8 blocks: 0.66x) and 0.97-0.99x in the LLC (0.84-0.89x), where Auto's
// tuning still picks libxsmm per class.

// Software prefetch of the next item was tried and dropped (7086fa0, 2026-12-05, EPYC VM): one line
// of the next item's A, B and C per step of the block loops, into L1 (or L2, 1, 2 or 4 items ahead).
// Batches of 512 items started cold gained 1.35x from DRAM, but the rows that matter did not: the
// 256 MiB batch of 16 x 16 items in one call ran 9.0-10.3 ms without, 10.4-11.9 ms with (libxsmm's
// prefetching kernel 8.1-8.3); `tune` found it 3-10% slower in the LLC and never ahead beyond noise
// at n = 16 or 32, 1 or 2 threads. The hardware prefetchers already follow these sequential streams.
// Tried again with C streamed from the registers (2026-12-05): the next item's A and B, all their
// lines spread over the first block's p loop. Against libxsmm's prefetching, streaming kernel in the
// same `tune` (n = 16): into L1 the LLC classes went from 0.93-1.06x to 1.00-1.08x of its time and
// DRAM from 1.69x to 1.01 (one thread); into L2 the LLC read 1.06-1.16x, DRAM 0.89. Where Auto's
// choices are made (the LLC) no better than without, so not kept. On the Zen 4 VM (2026-12-06, where
// PREFETCHT1 fills only the L2), the 256 MiB batch of 16 x 16 items at one thread through the tuned
// streaming route (`tfbench run`, the case alone, two runs each): 7.19-7.40 ms without, with the next
// (or fourth next) item's A and B one line each per p step into L2 7.48-8.12, all 64 lines at once
// 12.6-13.5. Its hardware prefetchers keep up here too.

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#define TFBENCH_IMPL_COLUMN_BLOCKS_AVX512 1

namespace tfbench::impl::batched {

/// Whether an f64 N x N item has a column-block kernel here.
constexpr bool has_column_blocks(int n) {
  return n == 16 || n == 32;
}

/// Columns [j0, j0 + Columns) of C = alpha A B (+ beta C unless BetaZero), all N rows (N / 8
/// vectors per column). Each element of C is A(i,0) B(0,j) followed by one FMA per p in order, in
/// every block shape: the blocking changes no result. Stream (BetaZero only, `c` 64-byte aligned):
/// each column's whole lines go out in non-temporal stores straight from the accumulators.
template <int N, int Columns, bool BetaZero, bool Stream = false>
inline void gemm_f64_column_block(const double alpha, const double* a, const double* b, const double beta,
                                  double* c, const int j0) {
  constexpr int rows = N / 8;  // vectors per column
  const double* bj = b + j0 * N;
  __m512d acc[rows][Columns];
  {
    __m512d a0[rows];
#pragma GCC unroll 4
    for (int v = 0; v < rows; ++v) a0[v] = _mm512_loadu_pd(a + 8 * v);
#pragma GCC unroll 8
    for (int j = 0; j < Columns; ++j) {
      const __m512d b0j = _mm512_set1_pd(bj[j * N]);
#pragma GCC unroll 4
      for (int v = 0; v < rows; ++v) acc[v][j] = _mm512_mul_pd(a0[v], b0j);
    }
  }
#pragma GCC unroll 16
  for (int p = 1; p < N; ++p) {
    __m512d ap[rows];
#pragma GCC unroll 4
    for (int v = 0; v < rows; ++v) ap[v] = _mm512_loadu_pd(a + p * N + 8 * v);
#pragma GCC unroll 8
    for (int j = 0; j < Columns; ++j) {
      const __m512d bpj = _mm512_set1_pd(bj[j * N + p]);
#pragma GCC unroll 4
      for (int v = 0; v < rows; ++v) acc[v][j] = _mm512_fmadd_pd(ap[v], bpj, acc[v][j]);
    }
  }
  const bool scaled = alpha != 1.0;
  const __m512d va = _mm512_set1_pd(alpha);
#pragma GCC unroll 8
  for (int j = 0; j < Columns; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < rows; ++v) {
      double* cij = c + (j0 + j) * N + 8 * v;
      __m512d r = acc[v][j];
      if (scaled) r = _mm512_mul_pd(va, r);
      if constexpr (!BetaZero) r = _mm512_fmadd_pd(_mm512_set1_pd(beta), _mm512_loadu_pd(cij), r);
      if constexpr (Stream) {
        static_assert(BetaZero, "a streamed C is only written");
        _mm512_stream_pd(cij, r);
      } else {
        _mm512_storeu_pd(cij, r);
      }
    }
  }
}

/// C = alpha A B (+ beta C unless BetaZero) for one compact column-major f64 N x N item
/// (has_column_blocks(N)); `c` may be a tile the caller streams to the item (the same arithmetic
/// either way).
template <int N, bool BetaZero, bool Stream = false>
inline void gemm_f64_column_blocks_item(const double alpha, const double* a, const double* b,
                                        const double beta, double* c) {
  static_assert(has_column_blocks(N), "n = 16 or 32");
  if constexpr (N == 16) {
    gemm_f64_column_block<16, 8, BetaZero, Stream>(alpha, a, b, beta, c, 0);
    gemm_f64_column_block<16, 8, BetaZero, Stream>(alpha, a, b, beta, c, 8);
  } else {
    for (int j0 = 0; j0 < 30; j0 += 5)
      gemm_f64_column_block<32, 5, BetaZero, Stream>(alpha, a, b, beta, c, j0);
    gemm_f64_column_block<32, 2, BetaZero, Stream>(alpha, a, b, beta, c, 30);
  }
}

/// Items [begin, end) of compact column-major f64 N x N items.
template <int N, bool BetaZero, bool Stream = false>
inline void gemm_f64_column_blocks_items(const double alpha, const double* a, const double* b,
                                         const double beta, double* c, std::int64_t begin,
                                         const std::int64_t end) {
  constexpr std::int64_t size = std::int64_t(N) * N;
  for (std::int64_t i = begin; i < end; ++i)
    gemm_f64_column_blocks_item<N, BetaZero, Stream>(alpha, a + size * i, b + size * i, beta, c + size * i);
}

}  // namespace tfbench::impl::batched
#endif
