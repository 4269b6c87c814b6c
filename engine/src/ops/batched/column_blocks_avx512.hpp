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

// Software prefetch of an item ahead (Prefetch, the route's BatchedOptions::prefetch): while one
// item is computed, one line each of a later item's A and B per step of a block's p loop, into the
// L2 (PREFETCHT1; it fills only the L2 on Zen 4), spread over the blocks that read no new lines of A:
// n = 32 over the second to fifth of its seven blocks (A is read whole by the first), n = 16 over
// both (two pairs of lines at each p loop's first step). The later item is the one two ahead
// (kPrefetchItemsAhead, below); the measurements in this paragraph are of the next one, the kernel
// until 2026-12-07. Without it the first block of each item waits for A: the hardware's stream
// prefetchers see A's lines in order only while the first block reads them, then nothing of A for
// six blocks, and start late on the next item. On the Zen 4 VM (2026-12-07, standalone, 256 MiB in
// 2 MiB pages, streaming stores, the variants interleaved, median of 15) 10922 items of 32 x 32 from
// DRAM took 15.0-15.5 ms at one thread and 7.8-8.3 at two without, 13.6 and 6.8-7.5 with (into the
// L1: 14.1-14.2 and 7.2-7.4), about the kernel's own rate over an LLC-resident batch; 16 x 16 at one
// thread 8.3-9.4 -> 8.0-8.6, at two 6.7 -> 6.9. `tune`, in one process: 32 x 32 from DRAM 14.6 ->
// 13.0 ms and 7.31 -> 6.49, 16 x 16 from DRAM 7.94 -> 8.15 and 4.08 -> 3.75, in the L2 and most of the
// LLC within 1-2% either way (23 MiB of 32 x 32 items: 1.25 -> 1.15 ms); it measures both for each
// class.
//
// Tried before and dropped (7086fa0, 2026-12-05 and 2026-12-06): one line of the next item's A, B
// and C per step into L1 or L2 (C, streamed, needs none), and all of the next item's lines in the
// first block's p loop (a burst that holds the miss buffers the kernel's own loads need); neither
// test looked at where the compiler had put the prefetches (prefetch_item_line).

#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>

#include <cstdint>

#define TFBENCH_IMPL_COLUMN_BLOCKS_AVX512 1

namespace tfbench::impl::batched {

/// Whether an f64 N x N item has a column-block kernel here.
constexpr bool has_column_blocks(int n) {
  return n == 16 || n == 32;
}

/// The A and B the kernel prefetches while it computes one item (kPrefetchItemsAhead after it).
struct PrefetchItem {
  const double* a = nullptr;
  const double* b = nullptr;
};

/// Line `line` of the prefetched item's A and B into the L2, after `after` (a vector this step of
/// the p loop loaded). Always inlined: a call in the p loop would spill every accumulator (the vector
/// registers are all caller-saved). The empty asm makes the addresses depend on `after`, so that the
/// compiler's scheduler cannot hoist the unrolled loop's prefetches into one burst at its top: GCC 12
/// gathered them 11-24 at a time, and 16 x 16 items from DRAM then ran 1.7x slower than without (13.7 against
/// 7.7 ms, `tune`), where spread one a step they ran faster.
__attribute__((always_inline)) inline void prefetch_item_line(const PrefetchItem& next, const int line,
                                                              const __m512d after) {
  const char* a = reinterpret_cast<const char*>(next.a) + 64 * line;
  const char* b = reinterpret_cast<const char*>(next.b) + 64 * line;
  asm("" : "+r"(a), "+r"(b) : "v"(after));
  _mm_prefetch(a, _MM_HINT_T1);
  _mm_prefetch(b, _MM_HINT_T1);
}

/// Columns [j0, j0 + Columns) of C = alpha A B (+ beta C unless BetaZero), all N rows (N / 8
/// vectors per column). Each element of C is A(i,0) B(0,j) followed by one FMA per p in order, in
/// every block shape: the blocking changes no result. Stream (BetaZero only, `c` 64-byte aligned):
/// each column's whole lines go out in non-temporal stores straight from the accumulators.
/// PrefetchLines >= 0: lines [PrefetchLines, PrefetchLines + N) of `next`'s A and B go to the L2, one
/// of each per step of the p loop (two at its first).
template <int N, int Columns, bool BetaZero, bool Stream = false, int PrefetchLines = -1>
inline void gemm_f64_column_block(const double alpha, const double* a, const double* b, const double beta,
                                  double* c, const int j0, const PrefetchItem& next = {}) {
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
    if constexpr (PrefetchLines >= 0) {
      if (p == 1) prefetch_item_line(next, PrefetchLines, ap[0]);
      prefetch_item_line(next, PrefetchLines + p, ap[0]);
    }
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
/// either way). Prefetch: `next`'s A and B (N * N / 8 lines each) go to the L2 meanwhile.
template <int N, bool BetaZero, bool Stream = false, bool Prefetch = false>
inline void gemm_f64_column_blocks_item(const double alpha, const double* a, const double* b,
                                        const double beta, double* c, const PrefetchItem& next = {}) {
  static_assert(has_column_blocks(N), "n = 16 or 32");
  constexpr int none = -1;
  if constexpr (N == 16) {
    gemm_f64_column_block<16, 8, BetaZero, Stream, Prefetch ? 0 : none>(alpha, a, b, beta, c, 0, next);
    gemm_f64_column_block<16, 8, BetaZero, Stream, Prefetch ? 16 : none>(alpha, a, b, beta, c, 8, next);
  } else if constexpr (!Prefetch) {
    for (int j0 = 0; j0 < 30; j0 += 5)
      gemm_f64_column_block<32, 5, BetaZero, Stream>(alpha, a, b, beta, c, j0);
    gemm_f64_column_block<32, 2, BetaZero, Stream>(alpha, a, b, beta, c, 30);
  } else {
    // The first block reads A: the prefetched item's 128 lines of each wait for the four after it.
    gemm_f64_column_block<32, 5, BetaZero, Stream>(alpha, a, b, beta, c, 0);
    gemm_f64_column_block<32, 5, BetaZero, Stream, 0>(alpha, a, b, beta, c, 5, next);
    gemm_f64_column_block<32, 5, BetaZero, Stream, 32>(alpha, a, b, beta, c, 10, next);
    gemm_f64_column_block<32, 5, BetaZero, Stream, 64>(alpha, a, b, beta, c, 15, next);
    gemm_f64_column_block<32, 5, BetaZero, Stream, 96>(alpha, a, b, beta, c, 20, next);
    gemm_f64_column_block<32, 5, BetaZero, Stream>(alpha, a, b, beta, c, 25);
    gemm_f64_column_block<32, 2, BetaZero, Stream>(alpha, a, b, beta, c, 30);
  }
}

/// How far ahead the prefetching kernel fetches: item i prefetches item i + 2's A and B. One item
/// ahead, the lines prefetched at the end of item i were still on their way from DRAM when item i + 1
/// began: a 16 x 16 item computes in about one DRAM latency (140-170 ns a core). Two ahead leaves a
/// whole item of slack: 10922 16 x 16 items from DRAM at one thread 7.22-7.38 ms against 7.43-7.54 one
/// ahead (median of 15 interleaved, streamed C, EPYC VM, 2026-12-07), the same at two threads, and
/// 32 x 32 items (1.2 us each) the same either way.
inline constexpr std::int64_t kPrefetchItemsAhead = 2;

/// Items [begin, end) of compact column-major f64 N x N items; Prefetch: each item prefetches the A
/// and B of the item kPrefetchItemsAhead after it, where that is before `end` (never another lane's
/// items, nor past the batch).
template <int N, bool BetaZero, bool Stream = false, bool Prefetch = false>
inline void gemm_f64_column_blocks_items(const double alpha, const double* a, const double* b,
                                         const double beta, double* c, std::int64_t begin,
                                         const std::int64_t end) {
  constexpr std::int64_t size = std::int64_t(N) * N;
  constexpr std::int64_t ahead = kPrefetchItemsAhead * size;
  for (std::int64_t i = begin; i < end; ++i) {
    const double *ai = a + size * i, *bi = b + size * i;
    if (Prefetch && i + kPrefetchItemsAhead < end) {
      gemm_f64_column_blocks_item<N, BetaZero, Stream, true>(alpha, ai, bi, beta, c + size * i,
                                                             PrefetchItem{ai + ahead, bi + ahead});
    } else {
      gemm_f64_column_blocks_item<N, BetaZero, Stream>(alpha, ai, bi, beta, c + size * i);
    }
  }
}

}  // namespace tfbench::impl::batched
#endif
