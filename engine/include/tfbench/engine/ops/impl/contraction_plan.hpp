#pragma once
// Lowering of one binary (or unary) contraction into kernel calls, decided once from labels,
// extents and strides alone (no data pointers, so a plan can be cached and replayed):
//  - classify labels: batch (A, B, out), contracted (A, B), left free (A, out), right free (B, out),
//    summed in one operand only;
//  - no contracted label: an elementwise product with broadcast strides, written in place (an
//    all-batch contraction is the case with no free labels either) - classified before GEMM;
//  - tiny items: a direct strided contraction kernel, no packing;
//  - otherwise GEMM (one, or one per batch item): each operand is borrowed when its rows/columns
//    are already a compact column-major matrix (or its transpose) in a label order that the other
//    operands and the destination agree on, else packed (copied, or reduced when it carries labels
//    summed only there) into scratch; the destination is written directly when it fits, else
//    through a scratch product and one strided copy.

#include <cstdint>

#include "tfbench/engine/ops/einsum_spec.hpp"
#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

using ops::LabelList;

/// An operand with unique labels (a repeated label already folded into its diagonal).
struct ContractOperand {
  LabelList labels;
  DimList shape;
  StrideList strides;
};

/// Folds repeated labels of an operand into a diagonal view (their strides add). Throws
/// OpError(ShapeMismatch) when a repeated label's extents differ, InvalidSpec on a rank mismatch.
ContractOperand fold_operand(const LabelList& labels, const RawLayout& layout, const char* where);

/// Extent of every label (indexed by the label's character code), -1 where unknown.
struct LabelExtents {
  index_t of[128];
  LabelExtents() {
    for (auto& e : of) e = -1;
  }
  index_t operator[](char label) const { return of[static_cast<unsigned char>(label)]; }
  /// Records an operand's extents; throws OpError(ShapeMismatch) on a disagreement.
  void bind(const ContractOperand& op, const char* where);
};

enum class ContractionRoute { Unary, ElementwiseProduct, Direct, Gemm, BatchedGemm };
const char* name(ContractionRoute route);

/// A matrix operand of a GEMM: element (r, c) at r * rs + c * cs.
struct MatrixForm {
  bool ok = false;
  index_t rs = 1;
  index_t cs = 1;
};

/// Preparation of one operand into scratch.
struct PackStep {
  enum class Kind { None, Copy, Reduce };
  Kind kind = Kind::None;
  DimList shape;         // Copy: target order; Reduce: source axis order
  StrideList in;         // source strides over `shape`
  StrideList out;        // scratch strides (Reduce: kept axes only, in source order)
  FlagList reduced;      // Reduce: summed axes
  index_t elements = 0;  // scratch size
};

/// A strided loop over some labels with the strides of up to three operands.
struct StridedLoop {
  DimList shape;
  StrideList out, a, b;
};

struct ContractionProgram {
  ContractionRoute route = ContractionRoute::Gemm;
  bool all_batch = false;  // every label of both operands is a batch label
  bool empty = false;      // the output has no elements: nothing to do
  bool zero = false;       // a summed extent is zero: the output is filled with zeros
  StridedLoop dest;        // destination shape/strides over its non-unit labels (zero fill)

  PackStep pack_a, pack_b;  // scratch slots 0 and 1

  // ElementwiseProduct / Direct: loop over the output labels (out, a, b strides).
  StridedLoop outer;
  // Direct: loop over the summed labels (a, b strides).
  StridedLoop inner;
  // Unary: the single operand copied (pack_a Copy) or reduced (pack_a Reduce) into the destination.

  // Gemm / BatchedGemm: C [gm, gn] = A [gm, gk] B [gk, gn] per batch item, each matrix given by its
  // row and column strides in its effective buffer (borrowed operand, packed scratch, destination or
  // scratch product); the large-GEMM and batched-GEMM routines of the batched concern take these
  // as they are (column-major with a leading dimension, or row-major).
  index_t gm = 0, gn = 0, gk = 0;
  MatrixForm a_form, b_form, c_form;
  StridedLoop batch;  // merged batch axes: strides of C (out), A (a), B (b)
  bool out_via_scratch = false;
  index_t out_scratch_elements = 0;  // scratch slot 2
  StridedLoop finish;                // scratch -> destination copy (a = scratch strides)

  // Layout of the result when the caller let the plan choose it (intermediates): labels in order,
  // compact column-major.
  LabelList result_labels;

  // Statistics the route report uses.
  index_t packed_elements = 0;
  int borrowed_operands = 0;
  int packed_operands = 0;
};

/// Work per batch item (multiply-adds) up to which a step runs the direct kernel rather than pack +
/// GEMM, where nothing measured on the machine says otherwise (BatchThresholds::
/// direct_contraction_muladds, a tuning's crossover: direct_contraction_muladds(session)).
inline constexpr index_t kDirectItemWork = 2048;

/// What the session's provider selection and batch policy allow a plan to use.
struct PlanOptions {
  /// GEMM steps may call the BLAS provider (an independent runtime: not inside outer fan-out).
  /// Without it every contracted step runs the direct kernel on the session's own space.
  bool blas = true;
  /// Multiply-adds per item up to which a step runs the direct kernel even where BLAS may run.
  double direct_item_muladds = static_cast<double>(kDirectItemWork);
};

/// Plans `out = contract(a, b)`. `out_labels` are the destination's labels; `dest_strides` its
/// strides over them, or null to let the plan choose a compact layout (result_labels says which).
ContractionProgram plan_binary(const ContractOperand& a, const ContractOperand& b,
                               const LabelList& out_labels, const LabelExtents& extents,
                               const index_t* dest_strides, PlanOptions options = {});

/// Plans `out = a` with labels permuted, summed or taken on the diagonal (one-operand einsum).
ContractionProgram plan_unary(const ContractOperand& a, const LabelList& out_labels,
                              const LabelExtents& extents, const index_t* dest_strides);

}  // namespace tfbench::impl
