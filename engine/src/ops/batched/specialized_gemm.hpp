#pragma once
// tfbench's own GEMM item kernels: C = alpha * A * B + beta * C for one small item, with the item
// sizes as template parameters so that the compiler keeps a register tile of C and vectorizes over
// its rows. Portable (KOKKOS_INLINE_FUNCTION): the same code runs in a host loop, an OpenMP lane or
// a device thread. A runtime-size kernel covers every other shape.
//
// Vectorization: GCC 12's loop vectorizer, left alone, vectorizes the k loop of a small product as a
// reduction over transposed operands (slower than scalar code). `omp simd` on the row loop pins the
// vector dimension to the rows of the tile; the k loop stays a plain loop over broadcasts of B.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "column_blocks_avx512.hpp"
#include "column_pairs_4x4_avx512.hpp"
#include "columns_8x8_avx512.hpp"
#include "item_batch.hpp"
#include "pair_items_avx512.hpp"
#include "small_items_avx2.hpp"
#include "sweep_order.hpp"

#if defined(_OPENMP) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define TFBENCH_IMPL_SIMD _Pragma("omp simd")
#else
#define TFBENCH_IMPL_SIMD
#endif

#if defined(__AVX__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#include <immintrin.h>
#define TFBENCH_IMPL_STREAM_STORES 1
#endif

namespace tfbench::impl::batched {

/// The operands of one batched GEMM: C_i = alpha A_i B_i + beta C_i with A [m, k], B [k, n], C [m, n].
template <class T>
struct GemmBatch {
  ItemBatch<const T> a;
  ItemBatch<const T> b;
  ItemBatch<T> c;
  T alpha;
  T beta;
  int m() const { return c.rows; }
  int n() const { return c.cols; }
  int k() const { return a.cols; }
  std::int64_t count() const { return c.count; }
};

/// Operand bytes beyond which a batch streams from memory rather than from the caches.
inline constexpr double kStreamingBatchBytes = 2.0 * 1024 * 1024;

/// The bytes of the batch's A, B and C items (their elements, not the padding between them).
template <class T>
double operand_bytes(const GemmBatch<T>& g) {
  const double elements =
      static_cast<double>(g.count()) *
      (double(g.a.rows) * g.a.cols + double(g.b.rows) * g.b.cols + double(g.c.rows) * g.c.cols);
  return elements * sizeof(T);
}

/// Whether the batch's A, B and C items (their elements, not the padding between them) exceed the
/// caches. The one test of "streaming" of Auto's built-in rules: its provider preference, libxsmm's
/// prefetching kernel and the specialized kernel's non-temporal stores all ask it (a tuning replaces
/// the last two with measured choices).
template <class T>
bool streaming_batch(const GemmBatch<T>& g) {
  return operand_bytes(g) > kStreamingBatchBytes;
}

/// Copies Count elements to 32-byte aligned `dst` with non-temporal stores where the host has them.
/// A beta = 0 item of a streaming batch is only written: a regular store first reads the line
/// (write-allocate), a quarter of a small item's memory traffic that its peers pay.
template <class T, int Count>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(T* dst, const T* src) {
#if defined(TFBENCH_IMPL_STREAM_STORES)
  if constexpr (std::is_same<T, double>::value && Count % 4 == 0) {
    for (int i = 0; i < Count; i += 4) _mm256_stream_pd(dst + i, _mm256_loadu_pd(src + i));
    return;
  }
  if constexpr (std::is_same<T, float>::value && Count % 8 == 0) {
    for (int i = 0; i < Count; i += 8) _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
    return;
  }
#endif
  for (int i = 0; i < Count; ++i) dst[i] = src[i];
}

/// Orders this thread's non-temporal stores before anything it stores later (a lane's last write).
KOKKOS_FORCEINLINE_FUNCTION void streaming_stores_done() {
#if defined(TFBENCH_IMPL_STREAM_STORES)
  _mm_sfence();
#endif
}

/// Whether packed items of n x n elements of T can stream their C: beta = 0, items of whole 32-byte
/// vectors at 32-byte aligned addresses (host builds with AVX only). Whether they do is the route's
/// choice (ItemsRoute::stream_c).
template <class T>
bool streams_c(const GemmBatch<T>& g, const int n) {
#if defined(TFBENCH_IMPL_STREAM_STORES)
  const bool real = std::is_same<T, double>::value || std::is_same<T, float>::value;
  return real && (std::size_t(n) * n * sizeof(T)) % 32 == 0 && g.beta == T(0) &&
         reinterpret_cast<std::uintptr_t>(g.c.data) % 32 == 0;
#else
  (void)g, (void)n;
  return false;
#endif
}

/// Register tile of C: MB rows (at most two 32-byte vectors) by NB columns, as many vector
/// accumulators as leave four registers for the A column, the broadcast of B and the compiler: 12 of
/// AVX2's 16, 28 of AVX-512's 32 (which the 32-byte vectors use too: an f64 8 x 8 item is one tile
/// there instead of an 8 x 6 and an 8 x 2 one, each reading all of A).
KOKKOS_INLINE_FUNCTION constexpr int tile_accumulators() {
#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
  return 28;
#else
  return 12;
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr int simd_lanes() {
  return sizeof(T) >= 32 ? 1 : static_cast<int>(32 / sizeof(T));
}
template <class T, int M>
KOKKOS_INLINE_FUNCTION constexpr int tile_rows() {
  return M <= 2 * simd_lanes<T>() ? M : 2 * simd_lanes<T>();
}
template <class T, int MB, int N>
KOKKOS_INLINE_FUNCTION constexpr int tile_cols() {
  constexpr int vectors = (MB + simd_lanes<T>() - 1) / simd_lanes<T>();
  constexpr int nb = tile_accumulators() / (vectors < 1 ? 1 : vectors);
  return nb < 1 ? 1 : (nb > N ? N : nb);
}

/// One MB x NB tile of C from a K-deep panel of A and B (k is a runtime value so that the runtime-size
/// kernel shares this code).
template <class T, int MB, int NB, bool BetaZero>
KOKKOS_FORCEINLINE_FUNCTION void gemm_tile(const int k, const T alpha, const T* a, const std::ptrdiff_t ars,
                                           const std::ptrdiff_t acs, const T* b, const std::ptrdiff_t brs,
                                           const std::ptrdiff_t bcs, const T beta, T* c,
                                           const std::ptrdiff_t crs, const std::ptrdiff_t ccs) {
  T acc[NB][MB];
  for (int j = 0; j < NB; ++j)
    for (int i = 0; i < MB; ++i) acc[j][i] = T(0);
  for (int p = 0; p < k; ++p) {
    for (int j = 0; j < NB; ++j) {
      const T bpj = b[p * brs + j * bcs];
      TFBENCH_IMPL_SIMD
      for (int i = 0; i < MB; ++i) acc[j][i] += a[i * ars + p * acs] * bpj;
    }
  }
  // No `omp simd` here: with alpha == 1 GCC turns a vectorized store loop into a block copy out of
  // a stack copy of the accumulators (8 x 16-byte moves per 4x4 item, measured 0.7x Eigen).
  for (int j = 0; j < NB; ++j) {
    for (int i = 0; i < MB; ++i) {
      T& cij = c[i * crs + j * ccs];
      if constexpr (BetaZero) {
        cij = alpha * acc[j][i];  // overwrite: the old C is never read
      } else {
        cij = alpha * acc[j][i] + beta * cij;
      }
    }
  }
}

/// The rows of one block of NB columns: full MB tiles, then the compile-time remainder.
template <class T, int M, int K, int NB, bool BetaZero>
KOKKOS_FORCEINLINE_FUNCTION void gemm_column_block(const T alpha, const T* a, const std::ptrdiff_t ars,
                                                   const std::ptrdiff_t acs, const T* b,
                                                   const std::ptrdiff_t brs, const std::ptrdiff_t bcs,
                                                   const T beta, T* c, const std::ptrdiff_t crs,
                                                   const std::ptrdiff_t ccs) {
  constexpr int MB = tile_rows<T, M>();
  for (int i0 = 0; i0 + MB <= M; i0 += MB)
    gemm_tile<T, MB, NB, BetaZero>(K, alpha, a + i0 * ars, ars, acs, b, brs, bcs, beta, c + i0 * crs, crs,
                                   ccs);
  if constexpr (M % MB != 0) {
    constexpr int i0 = M - M % MB;
    gemm_tile<T, M % MB, NB, BetaZero>(K, alpha, a + i0 * ars, ars, acs, b, brs, bcs, beta, c + i0 * crs, crs,
                                       ccs);
  }
}

/// C = alpha A B + beta C for one item with compile-time M, N, K and any strides (the strides a
/// caller passes as constants fold away after inlining).
template <class T, int M, int N, int K, bool BetaZero>
KOKKOS_FORCEINLINE_FUNCTION void gemm_fixed(const T alpha, const T* a, const std::ptrdiff_t ars,
                                            const std::ptrdiff_t acs, const T* b, const std::ptrdiff_t brs,
                                            const std::ptrdiff_t bcs, const T beta, T* c,
                                            const std::ptrdiff_t crs, const std::ptrdiff_t ccs) {
  constexpr int NB = tile_cols<T, tile_rows<T, M>(), N>();
  for (int j0 = 0; j0 + NB <= N; j0 += NB)
    gemm_column_block<T, M, K, NB, BetaZero>(alpha, a, ars, acs, b + j0 * bcs, brs, bcs, beta, c + j0 * ccs,
                                             crs, ccs);
  if constexpr (N % NB != 0) {
    constexpr int j0 = N - N % NB;
    gemm_column_block<T, M, K, N % NB, BetaZero>(alpha, a, ars, acs, b + j0 * bcs, brs, bcs, beta,
                                                 c + j0 * ccs, crs, ccs);
  }
}

/// Whether a compact M x N item of T is small enough for gemm_compact_flat: its C fits in one
/// 32-byte vector (f64 and f32 2 x 2).
template <class T, int M, int N>
KOKKOS_INLINE_FUNCTION constexpr bool flat_item() {
  return M * N <= simd_lanes<T>();
}

/// C = alpha A B + beta C for one compact item (column-major, no padding), element by element of C
/// into a temporary that is stored at the end. The register tile's per-column broadcasts of B cost
/// more than the arithmetic for items this small; written this way, with no store to C before the
/// last read of A and B, GCC 12 vectorizes the batch's item loop across items instead (f64 2 x 2:
/// 1.5x the register tile, 1.9x Eigen's fixed-size product, 512 items at 1 thread on the Xeon).
template <class T, int M, int N, int K, bool BetaZero>
KOKKOS_FORCEINLINE_FUNCTION void gemm_compact_flat(const T alpha, const T* a, const T* b, const T beta,
                                                   T* c) {
  T t[M * N];
  for (int e = 0; e < M * N; ++e) {
    const int i = e % M, j = e / M;
    T s = a[i] * b[j * K];
    for (int p = 1; p < K; ++p) s += a[i + p * M] * b[p + j * K];
    t[e] = s;
  }
  for (int e = 0; e < M * N; ++e) {
    if constexpr (BetaZero) {
      c[e] = alpha * t[e];
    } else {
      c[e] = alpha * t[e] + beta * c[e];
    }
  }
}

/// One compact item (the packed layout's kernel): the flat kernel for the smallest items, else the
/// register tile.
template <class T, int M, int N, int K, bool BetaZero>
KOKKOS_FORCEINLINE_FUNCTION void gemm_compact(const T alpha, const T* a, const T* b, const T beta, T* c) {
  if constexpr (flat_item<T, M, N>()) {
    gemm_compact_flat<T, M, N, K, BetaZero>(alpha, a, b, beta, c);
  } else {
    gemm_fixed<T, M, N, K, BetaZero>(alpha, a, 1, M, b, 1, K, beta, c, 1, M);
  }
}

/// Runtime-size kernel: full register tiles where they fit, a plain remainder elsewhere.
template <class T, bool BetaZero>
KOKKOS_INLINE_FUNCTION void gemm_runtime(const int m, const int n, const int k, const T alpha, const T* a,
                                         const std::ptrdiff_t ars, const std::ptrdiff_t acs, const T* b,
                                         const std::ptrdiff_t brs, const std::ptrdiff_t bcs, const T beta,
                                         T* c, const std::ptrdiff_t crs, const std::ptrdiff_t ccs) {
  constexpr int MB = 2 * simd_lanes<T>();
  constexpr int NB = tile_cols<T, MB, 64>();
  for (int j0 = 0; j0 < n; j0 += NB) {
    const int nb = n - j0 < NB ? n - j0 : NB;
    for (int i0 = 0; i0 < m; i0 += MB) {
      const int mb = m - i0 < MB ? m - i0 : MB;
      const T* ai = a + i0 * ars;
      const T* bj = b + j0 * bcs;
      T* cij = c + i0 * crs + j0 * ccs;
      if (mb == MB && nb == NB) {
        gemm_tile<T, MB, NB, BetaZero>(k, alpha, ai, ars, acs, bj, brs, bcs, beta, cij, crs, ccs);
        continue;
      }
      T acc[NB][MB];
      for (int j = 0; j < nb; ++j)
        for (int i = 0; i < mb; ++i) acc[j][i] = T(0);
      for (int p = 0; p < k; ++p)
        for (int j = 0; j < nb; ++j) {
          const T bpj = bj[p * brs + j * bcs];
          for (int i = 0; i < mb; ++i) acc[j][i] += ai[i * ars + p * acs] * bpj;
        }
      for (int j = 0; j < nb; ++j)
        for (int i = 0; i < mb; ++i) {
          T& out = cij[i * crs + j * ccs];
          if constexpr (BetaZero) {
            out = alpha * acc[j][i];
          } else {
            out = alpha * acc[j][i] + beta * out;
          }
        }
    }
  }
}

/// Item layouts a chunk is compiled for: compact items with every stride a constant; items whose
/// columns are contiguous (A and C unit row stride, B any); any strides.
enum class ItemLayout { Packed, UnitRows, Strided };

template <class T>
ItemLayout classify(const GemmBatch<T>& g) {
  if (g.a.packed() && g.b.packed() && g.c.packed()) return ItemLayout::Packed;
  if (g.a.rs == 1 && g.c.rs == 1) return ItemLayout::UnitRows;
  return ItemLayout::Strided;
}

/// Whether packed f64 n x n items have a kernel in 512-bit and one in 256-bit vectors in this build
/// (host builds with AVX-512: 2, 4 and 8), of which a route runs one (ItemsRoute::narrow).
KOKKOS_INLINE_FUNCTION constexpr bool has_two_widths(const int n) {
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512) && defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
  return has_small_item_avx2(n);
#else
  (void)n;
  return false;
#endif
}

/// Whether packed f64 n x n items have a kernel that can prefetch the next item while it computes one
/// in this build (host builds with AVX-512: the column blocks of 16 and 32), which a route asks for
/// (ItemsRoute::prefetch).
KOKKOS_INLINE_FUNCTION constexpr bool has_prefetching_kernel(const int n) {
#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
  return has_column_blocks(n);
#else
  (void)n;
  return false;
#endif
}

/// Items [begin, end) of a batch with compile-time sizes: the sequential per-item provider body.
template <class T, int M, int N, int K, ItemLayout Layout, bool BetaZero>
struct FixedGemmChunk {
  GemmBatch<T> g;
  bool stream_c = false;  // packed, beta = 0: C written with non-temporal stores (streams_c)
  bool narrow = false;    // packed f64 items with both widths of kernel: the 256-bit one (has_two_widths)
  // packed f64 items with a prefetching kernel: prefetch the next item (has_prefetching_kernel)
  bool prefetch = false;
  KOKKOS_INLINE_FUNCTION void operator()(const int /*lane*/, const std::int64_t begin,
                                         const std::int64_t end) const {
    bool backward = false;  // only kernels whose items' lines can be walked downwards sweep both ways
    if constexpr (may_sweep_both_ways()) {
      if (sweeps_both_ways()) backward = !stream_c && !streaming_batch(g) && next_sweep_backward();
    }
    // alpha == 1 (the common case) as a literal: the scaling folds away in the inlined kernel.
    if (g.alpha == T(1)) {
      items(T(1), begin, end, backward);
    } else {
      items(g.alpha, begin, end, backward);
    }
  }

  /// Whether this chunk's kernel prefetches the next item: asked, and the items have such a kernel.
  KOKKOS_INLINE_FUNCTION bool prefetches_next() const {
    return prefetch && packed_square_f64() && has_prefetching_kernel(M);
  }

  /// Whether this chunk runs the 256-bit kernel of small_items_avx2.hpp: an AVX2 host's only one, an
  /// AVX-512 host's where the route chose it (narrow).
  KOKKOS_INLINE_FUNCTION bool runs_256bit() const {
#if defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
    if constexpr (packed_square_f64() && has_small_item_avx2(M)) return narrow || !has_two_widths(M);
#endif
    return false;
  }

 private:
  /// Packed square f64 items: those of the AVX-512 kernels (2 x 2 two per vector,
  /// pair_items_avx512.hpp; 4 x 4 two columns per vector, column_pairs_4x4_avx512.hpp; 8 x 8 a column
  /// per vector, columns_8x8_avx512.hpp; 16 and 32 in blocks of whole columns, column_blocks_avx512.hpp)
  /// and of the AVX2 ones (2 x 2, 4 x 4 and 8 x 8, small_items_avx2.hpp).
  KOKKOS_INLINE_FUNCTION static constexpr bool packed_square_f64() {
    return Layout == ItemLayout::Packed && std::is_same<T, double>::value && M == N && N == K;
  }

  /// Whether the kernel runs a batch that does not stream (streaming_batch) descending every other
  /// call (sweep_order.hpp): the kernels of 2 x 2, 4 x 4 and, in 512-bit vectors, 8 x 8 items with
  /// regular stores, whose items are at most two lines of each operand or (8 x 8) walk their columns
  /// downwards too (not the 256-bit 8 x 8 kernel: measured slower, small_items_avx2.hpp).
  /// Not the column blocks of 16 and 32, which read A's columns upwards within an item (reversing
  /// them would change the sums' order): swept downwards they ran 20% slower at 489 items of 32 x 32
  /// in the LLC and up to twice as slow from DRAM (tune, 2026-12-05, EPYC VM), the prefetchers
  /// following each item's lines upwards past its end, and in reversed blocks of 64 KiB no faster in
  /// the LLC and 1.5x slower from DRAM. Nor streamed C, which leaves none of its lines in the caches
  /// for the next call; nor the generic kernels, not measured.
  KOKKOS_INLINE_FUNCTION bool sweeps_both_ways() const {
    if (runs_256bit()) return M != 8;
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
    return packed_square_f64() && (M == 2 || M == 4 || M == 8);
#else
    return false;
#endif
  }
  /// Whether any kernel of this size may (the host-only sweep state is compiled only then).
  KOKKOS_INLINE_FUNCTION static constexpr bool may_sweep_both_ways() {
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512) || defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
    return packed_square_f64() && (M == 2 || M == 4 || M == 8);
#else
    return false;
#endif
  }

  /// One packed item with beta 0 into `out` (the streaming path's tile): the kernel the regular
  /// path runs for the same item, so that streamed and regular stores of C agree bit for bit.
  KOKKOS_FORCEINLINE_FUNCTION void compact_item(const T alpha, const T* a, const T* b, T* out) const {
#if defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
    if constexpr (packed_square_f64() && has_small_item_avx2(M)) {
      if (runs_256bit()) {
        gemm_small_f64_avx2_item<M, true>(alpha, a, b, T(0), out);
        return;
      }
    }
#endif
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
    if constexpr (packed_square_f64() && M == 2) {
      gemm_2x2_f64_item<true>(alpha, a, b, T(0), out);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMN_PAIRS_4X4_AVX512)
    if constexpr (packed_square_f64() && M == 4) {
      gemm_4x4_f64_item<true>(alpha, a, b, T(0), out);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMNS_8X8_AVX512)
    if constexpr (packed_square_f64() && M == 8) {
      gemm_8x8_f64_columns<true>(alpha, a, b, T(0), out, 0, 1);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
    if constexpr (packed_square_f64() && has_column_blocks(M)) {
      gemm_f64_column_blocks_item<M, true>(alpha, a, b, T(0), out);
      return;
    }
#endif
    gemm_compact<T, M, N, K, true>(alpha, a, b, g.beta, out);
  }

  KOKKOS_FORCEINLINE_FUNCTION void items(const T alpha, const std::int64_t begin, const std::int64_t end,
                                         const bool backward) const {
    if constexpr (Layout == ItemLayout::Packed && BetaZero) {
      if (stream_c) {
#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
        // Whole 64-byte lines per column: streamed straight from the registers, no tile.
        if constexpr (packed_square_f64() && has_column_blocks(M)) {
          if (reinterpret_cast<std::uintptr_t>(g.c.data) % 64 == 0) {
            if (prefetches_next()) {
              gemm_f64_column_blocks_items<M, true, true, true>(alpha, g.a.data, g.b.data, T(0), g.c.data,
                                                                begin, end);
            } else {
              gemm_f64_column_blocks_items<M, true, true>(alpha, g.a.data, g.b.data, T(0), g.c.data, begin,
                                                          end);
            }
            streaming_stores_done();
            return;
          }
        }
#endif
        for (std::int64_t i = begin; i < end; ++i) {
          T tile[M * N];
          compact_item(alpha, g.a.data + i * (M * K), g.b.data + i * (K * N), tile);
          store_streaming<T, M * N>(g.c.data + i * (M * N), tile);
        }
        streaming_stores_done();
        return;
      }
    }
#if defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
    if constexpr (packed_square_f64() && has_small_item_avx2(M)) {
      if (runs_256bit()) {
        gemm_small_f64_avx2_items<M, BetaZero>(alpha, g.a.data, g.b.data, g.beta, g.c.data, begin, end,
                                               backward);
        return;
      }
    }
#endif
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
    if constexpr (packed_square_f64() && M == 2) {
      gemm_2x2_f64_pairs<BetaZero>(alpha, g.a.data, g.b.data, g.beta, g.c.data, begin, end, backward);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMN_PAIRS_4X4_AVX512)
    if constexpr (packed_square_f64() && M == 4) {
      gemm_4x4_f64_column_pairs<BetaZero>(alpha, g.a.data, g.b.data, g.beta, g.c.data, begin, end, backward);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMNS_8X8_AVX512)
    if constexpr (packed_square_f64() && M == 8) {
      gemm_8x8_f64_columns<BetaZero>(alpha, g.a.data, g.b.data, g.beta, g.c.data, begin, end, backward);
      return;
    }
#endif
#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
    if constexpr (packed_square_f64() && has_column_blocks(M)) {
      if (prefetches_next()) {
        gemm_f64_column_blocks_items<M, BetaZero, false, true>(alpha, g.a.data, g.b.data, g.beta, g.c.data,
                                                               begin, end);
      } else {
        gemm_f64_column_blocks_items<M, BetaZero>(alpha, g.a.data, g.b.data, g.beta, g.c.data, begin, end);
      }
      return;
    }
#endif
    for (std::int64_t i = begin; i < end; ++i) {
      if constexpr (Layout == ItemLayout::Packed) {
        gemm_compact<T, M, N, K, BetaZero>(alpha, g.a.data + i * (M * K), g.b.data + i * (K * N), g.beta,
                                           g.c.data + i * (M * N));
      } else if constexpr (Layout == ItemLayout::UnitRows) {
        gemm_fixed<T, M, N, K, BetaZero>(alpha, g.a.item(i), 1, g.a.cs, g.b.item(i), g.b.rs, g.b.cs, g.beta,
                                         g.c.item(i), 1, g.c.cs);
      } else {
        gemm_fixed<T, M, N, K, BetaZero>(alpha, g.a.item(i), g.a.rs, g.a.cs, g.b.item(i), g.b.rs, g.b.cs,
                                         g.beta, g.c.item(i), g.c.rs, g.c.cs);
      }
    }
  }
};

/// Items [begin, end) of a batch of any size.
template <class T, bool UnitRows, bool BetaZero>
struct RuntimeGemmChunk {
  GemmBatch<T> g;
  KOKKOS_INLINE_FUNCTION void operator()(const int /*lane*/, const std::int64_t begin,
                                         const std::int64_t end) const {
    const int m = g.c.rows, n = g.c.cols, k = g.a.cols;
    for (std::int64_t i = begin; i < end; ++i) {
      if constexpr (UnitRows) {
        gemm_runtime<T, BetaZero>(m, n, k, g.alpha, g.a.item(i), 1, g.a.cs, g.b.item(i), g.b.rs, g.b.cs,
                                  g.beta, g.c.item(i), 1, g.c.cs);
      } else {
        gemm_runtime<T, BetaZero>(m, n, k, g.alpha, g.a.item(i), g.a.rs, g.a.cs, g.b.item(i), g.b.rs, g.b.cs,
                                  g.beta, g.c.item(i), g.c.rs, g.c.cs);
      }
    }
  }
};

/// The square sizes with compile-time kernels: 2, 3, 4, 5, 6, 8, 12, 16, 24, 32 (keep in step with
/// with_specialized_size below). A function, not an array: device code cannot read a host array.
KOKKOS_INLINE_FUNCTION constexpr bool is_specialized_size(int n) {
  switch (n) {
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 8:
    case 12:
    case 16:
    case 24:
    case 32:
      return true;
    default:
      return false;
  }
}

KOKKOS_INLINE_FUNCTION constexpr bool has_fixed_kernel(int m, int n, int k) {
  return m == n && n == k && is_specialized_size(m);
}

/// Calls f(std::integral_constant<int, S>{}) with S = n when is_specialized_size(n) (keep the two in
/// step), else with S = 0: the one place that turns a runtime size into a compile-time one.
template <class F>
decltype(auto) with_specialized_size(int n, F&& f) {
  switch (n) {
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 12:
      return f(std::integral_constant<int, 12>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 24:
      return f(std::integral_constant<int, 24>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    default:
      return f(std::integral_constant<int, 0>{});
  }
}

/// Calls f(chunk) with the chunk functor for this batch: dispatched once per operation over size,
/// layout and beta == 0. `stream_c`: write C with streaming stores where the items allow (streams_c);
/// `narrow`: run the 256-bit kernel where the items have two (specialized_two_widths); `prefetch`:
/// prefetch the next item where the kernel can (specialized_prefetches).
template <class T, class F>
decltype(auto) with_specialized_chunk(const GemmBatch<T>& g, const bool stream_c, const bool narrow,
                                      const bool prefetch, F&& f) {
  const bool beta_zero = g.beta == T(0);
  const ItemLayout layout = classify(g);
  auto by_size = [&](auto size_tag) {
    constexpr int S = decltype(size_tag)::value;
    if constexpr (S == 0) {  // no compile-time kernel: runtime sizes
      if (layout != ItemLayout::Strided) {
        return beta_zero ? f(RuntimeGemmChunk<T, true, true>{g}) : f(RuntimeGemmChunk<T, true, false>{g});
      }
      return beta_zero ? f(RuntimeGemmChunk<T, false, true>{g}) : f(RuntimeGemmChunk<T, false, false>{g});
    } else {
      auto by_layout = [&](auto beta_tag) {
        constexpr bool B0 = decltype(beta_tag)::value;
        switch (layout) {
          case ItemLayout::Packed:
            return f(FixedGemmChunk<T, S, S, S, ItemLayout::Packed, B0>{g, B0 && stream_c && streams_c(g, S),
                                                                        narrow, prefetch});
          case ItemLayout::UnitRows:
            return f(FixedGemmChunk<T, S, S, S, ItemLayout::UnitRows, B0>{g});
          default:
            return f(FixedGemmChunk<T, S, S, S, ItemLayout::Strided, B0>{g});
        }
      };
      return beta_zero ? by_layout(std::true_type{}) : by_layout(std::false_type{});
    }
  };
  return with_specialized_size(has_fixed_kernel(g.m(), g.n(), g.k()) ? g.m() : 0, by_size);
}

/// Whether the specialized kernel has a 512-bit and a 256-bit kernel for this batch's items, between
/// which its route chooses (packed f64 items of a size has_two_widths names).
template <class T>
bool specialized_two_widths(const GemmBatch<T>& g) {
  return std::is_same<T, double>::value && classify(g) == ItemLayout::Packed &&
         has_fixed_kernel(g.m(), g.n(), g.k()) && has_two_widths(g.m());
}

/// Whether the specialized kernel prefetches the next item of this batch when its route asks (packed
/// f64 items of a size has_prefetching_kernel names).
template <class T>
bool specialized_prefetches(const GemmBatch<T>& g) {
  return std::is_same<T, double>::value && classify(g) == ItemLayout::Packed &&
         has_fixed_kernel(g.m(), g.n(), g.k()) && has_prefetching_kernel(g.m());
}

/// Whether the specialized kernel writes this batch's C with streaming stores when its route asks:
/// packed items with a compile-time kernel that streams_c allows.
template <class T>
bool specialized_streams_c(const GemmBatch<T>& g) {
  return classify(g) == ItemLayout::Packed && has_fixed_kernel(g.m(), g.n(), g.k()) && streams_c(g, g.m());
}

}  // namespace tfbench::impl::batched
