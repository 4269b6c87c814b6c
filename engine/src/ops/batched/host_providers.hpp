#pragma once
// Host-only item providers compiled in src/: libxsmm (one kernel dispatched per shape, called per
// item) and the BLAS per-item loop. Both take host pointers; neither runs on a device space.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "specialized_gemm.hpp"

namespace tfbench::impl::batched {

/// A dispatched libxsmm kernel: c = a * b (+ c when dispatched with beta 1), sizes baked in.
template <class T>
using XsmmKernel = void (*)(const T* a, const T* b, T* c, ...);

/// True when this build has libxsmm (TFBENCH_HAVE_LIBXSMM).
bool libxsmm_compiled();
/// The kernel for this shape, leading dimensions, alpha and beta, dispatched once and cached (per
/// thread, then libxsmm's own registry); null when libxsmm cannot provide one (alpha != 1, beta not in
/// {0, 1}, a shape it does not JIT, or no libxsmm in this build). A `prefetch` kernel takes the next
/// item's operands as three more arguments and prefetches them (LIBXSMM_PREFETCH_AUTO). A `stream_c`
/// kernel (beta 0 only) stores C with non-temporal stores (LIBXSMM_GEMM_FLAG_ALIGN_C_NTS_HINT): every
/// column of C must start on a 64-byte boundary (libxsmm_streams_c).
XsmmKernel<double> libxsmm_kernel(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb,
                                  std::ptrdiff_t ldc, double alpha, double beta, bool prefetch,
                                  bool stream_c);
XsmmKernel<float> libxsmm_kernel(int m, int n, int k, std::ptrdiff_t lda, std::ptrdiff_t ldb,
                                 std::ptrdiff_t ldc, float alpha, float beta, bool prefetch, bool stream_c);

/// Whether libxsmm can store this batch's C with streaming stores: beta = 0 and every item's columns
/// whole 64-byte lines at 64-byte aligned addresses (the kernel's aligned non-temporal stores).
template <class T>
bool libxsmm_streams_c(const GemmBatch<T>& g) {
  constexpr std::ptrdiff_t line = 64, size = sizeof(T);
  const ItemBatch<T>& c = g.c;
  const bool whole_lines = (std::ptrdiff_t(c.rows) * size) % line == 0 &&
                           (c.cols <= 1 || (c.cs * size) % line == 0) &&
                           (c.count <= 1 || (c.bs * size) % line == 0);
  return libxsmm_compiled() && g.beta == T(0) && c.unit_rows() && whole_lines &&
         reinterpret_cast<std::uintptr_t>(c.data) % line == 0;
}

/// Columns of C per call where a prefetching libxsmm route runs its items in column blocks, and the
/// fewest blocks an item must have for it (xsmm_prefetch_in_blocks).
inline constexpr int kXsmmBlockCols = 8;
inline constexpr int kXsmmMinBlocks = 4;

/// Whether a prefetching libxsmm route runs this batch's items in blocks of kXsmmBlockCols columns of
/// C (and B), prefetching a share of the next item's A between the blocks, rather than with libxsmm's
/// own prefetching kernel. Every block reads all of A, so the next item's A is wanted in full at its
/// first block: libxsmm's kernel left that burst to the hardware prefetcher, and from DRAM on the
/// Zen 2 VM (2026-12-06, standalone, 256 MiB, streaming stores) 32 x 32 items in four blocks ran
/// 1.09x its prefetching kernel in f64 (1.69 against 1.85 us an item; 1.09x at two threads) and
/// 1.06x in f32. With two blocks (16 x 16 items) half of A's lines come at once: 0.98x (f64) and
/// 0.90x (f32), so those keep libxsmm's kernel. From the caches the blocks cost 5-10% (each block
/// call re-reads A); `tfbench tune` measures prefetching against none for every class, so Auto takes
/// the blocks only where they win on the machine.
template <class T>
bool xsmm_prefetch_in_blocks(const GemmBatch<T>& g) {
  return g.n() % kXsmmBlockCols == 0 && g.n() / kXsmmBlockCols >= kXsmmMinBlocks && g.count() > 1;
}

/// The libxsmm kernel for a batch, prefetching the next item's operands or not, storing C with
/// streaming stores when `stream_c` (precondition: libxsmm_streams_c(g), which the caller checked:
/// the lanes need the answer too), or null when libxsmm does not apply to it (layout, scalars, dtype).
/// Where a prefetching route runs in column blocks (xsmm_prefetch_in_blocks), the kernel is one
/// block's: m x kXsmmBlockCols, without libxsmm's prefetch (the chunk prefetches).
template <class T>
XsmmKernel<T> libxsmm_kernel_for(const GemmBatch<T>& g, bool prefetch, bool stream_c) {
  if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
    if (!(g.a.unit_rows() && g.b.unit_rows() && g.c.unit_rows())) return nullptr;
    if (g.alpha != T(1) || !(g.beta == T(0) || g.beta == T(1))) return nullptr;
    auto ld = [](const ItemBatch<const T>& x) { return x.cs > x.rows ? x.cs : std::ptrdiff_t(x.rows); };
    const bool blocks = prefetch && xsmm_prefetch_in_blocks(g);
    return libxsmm_kernel(g.m(), blocks ? kXsmmBlockCols : g.n(), g.k(), ld(g.a), ld(g.b),
                          ld(ItemBatch<const T>(g.c)), g.alpha, g.beta, prefetch && !blocks, stream_c);
  } else {
    return nullptr;
  }
}

/// Asks for the cache line holding p, for reading, into every level (a hint: it never faults).
inline void prefetch_line(const void* p) {
  __builtin_prefetch(p, 0, 3);
}

/// Items [begin, end) through one dispatched libxsmm kernel (host spaces only).
template <class T>
struct XsmmGemmChunk {
  GemmBatch<T> g;
  XsmmKernel<T> kernel;  // libxsmm_kernel_for(g, prefetch, stream_c)
  bool prefetch;         // the route prefetches the next item's operands
  bool stream_c;         // the kernel was dispatched with streaming stores of C
  void operator()(const int /*lane*/, const std::int64_t begin, const std::int64_t end) const {
    const std::int64_t last = g.count() - 1;
    if (!prefetch) {
      for (std::int64_t i = begin; i < end; ++i) kernel(g.a.item(i), g.b.item(i), g.c.item(i));
    } else if (xsmm_prefetch_in_blocks(g)) {
      in_blocks(begin, end, last);
    } else {
      for (std::int64_t i = begin; i < end; ++i) {
        const std::int64_t next = i < last ? i + 1 : i;
        kernel(g.a.item(i), g.b.item(i), g.c.item(i), g.a.item(next), g.b.item(next), g.c.item(next));
      }
    }
    if (stream_c) streaming_stores_done();  // the lane's C visible before the region's join
  }

 private:
  /// Each item in blocks of kXsmmBlockCols columns, a share of the next item's A lines prefetched
  /// before each block (the last item of the batch prefetches nothing).
  void in_blocks(const std::int64_t begin, const std::int64_t end, const std::int64_t last) const {
    constexpr std::ptrdiff_t line = 64;
    const int blocks = g.n() / kXsmmBlockCols;
    const std::ptrdiff_t a_bytes = (std::ptrdiff_t(g.a.cs) * (g.k() - 1) + g.m()) * std::ptrdiff_t(sizeof(T));
    const std::ptrdiff_t b_step = std::ptrdiff_t(kXsmmBlockCols) * g.b.cs;
    const std::ptrdiff_t c_step = std::ptrdiff_t(kXsmmBlockCols) * g.c.cs;
    for (std::int64_t i = begin; i < end; ++i) {
      const T* a = g.a.item(i);
      const T* b = g.b.item(i);
      T* c = g.c.item(i);
      const char* next_a = i < last ? reinterpret_cast<const char*>(g.a.item(i + 1)) : nullptr;
      for (int q = 0; q < blocks; ++q) {
        if (next_a != nullptr) {
          const std::ptrdiff_t from = a_bytes * q / blocks, to = a_bytes * (q + 1) / blocks;
          for (std::ptrdiff_t off = from - from % line; off < to; off += line) prefetch_line(next_a + off);
        }
        kernel(a, b + q * b_step, c + q * c_step);
      }
    }
  }
};

/// Whether one BLAS gemm call per item can express this batch: every operand column- or row-major
/// within an item (a row-major item is the transpose of a column-major one), non-negative strides.
template <class T>
bool blas_applicable(const GemmBatch<T>& g) {
  auto ok = [](const ItemBatch<const T>& x) {
    if (!x.nonnegative_strides()) return false;
    return (x.rs == 1 && (x.cols <= 1 || x.cs >= x.rows)) || (x.cs == 1 && (x.rows <= 1 || x.rs >= x.cols));
  };
  return ok(g.a) && ok(g.b) && ok(ItemBatch<const T>(g.c));
}

/// One cblas gemm per item on the calling thread (OpenBLAS runs its own threads inside each call).
/// T is double, float or Kokkos::complex<double>. Precondition: blas_applicable(g).
template <class T>
void blas_gemm_items(const GemmBatch<T>& g);

}  // namespace tfbench::impl::batched

namespace tfbench::impl::batched {

template <class T>
struct SolveBatch;
struct SingularItems;

/// One LAPACK getrf + getrs per item on the calling thread (each item's A copied to a compact
/// buffer; X solved in place when its columns are contiguous, else through a compact buffer).
/// T is double, float or Kokkos::complex<double>. Returns the singular items (getrf info > 0).
template <class T>
SingularItems lapack_solve_items(const SolveBatch<T>& s);

}  // namespace tfbench::impl::batched
