#pragma once
// Large GEMM through KokkosBlas::gemm on LayoutLeft views (BLAS TPL to OpenBLAS on host, cuBLAS on
// CUDA builds with that TPL). Operands that are column-major with a leading dimension, or row-major
// (passed transposed), are used in place; only an operand with neither unit stride is packed.

#include <cstdint>

#include "item_batch.hpp"

namespace tfbench::impl::batched {

/// How BLAS sees one matrix operand.
enum class BlasForm { ColMajor, RowMajor, General };

template <class T>
BlasForm blas_form(const ItemBatch<T>& x) {
  if (x.rs == 1 && x.cs >= 0 && (x.cols <= 1 || x.cs >= x.rows)) return BlasForm::ColMajor;
  if (x.cs == 1 && x.rs >= 0 && (x.rows <= 1 || x.rs >= x.cols)) return BlasForm::RowMajor;
  return BlasForm::General;
}

/// What a large GEMM call did: which operands were packed into scratch (for tests and reports).
struct LargeGemmTrace {
  bool packed_a = false;
  bool packed_b = false;
  bool packed_c = false;
  bool transposed_c = false;  // a row-major C computed as C^T = B^T A^T
};

/// C = alpha A B + beta C for one matrix each (count 1), on `space`.
template <class Space, class T>
LargeGemmTrace execute_large_gemm(const Space& space, T alpha, const ItemBatch<const T>& a,
                                  const ItemBatch<const T>& b, T beta, const ItemBatch<T>& c);

}  // namespace tfbench::impl::batched
