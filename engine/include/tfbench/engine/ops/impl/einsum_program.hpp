#pragma once
// An einsum lowered to a sequence of unary/binary contraction programs: operands folded (diagonals),
// extents bound and checked, a greedy pairwise path for three or more operands (the pair sharing a
// label whose intermediate is smallest goes first), intermediates in compact scratch, and the last
// step writing the destination directly. Pure metadata: the program keeps no data pointers, so
// prepared einsums cache it and replay it.

#include <vector>

#include "tfbench/engine/ops/einsum_spec.hpp"
#include "tfbench/engine/ops/impl/contraction_plan.hpp"
#include "tfbench/engine/ops/impl/erased.hpp"

namespace tfbench::impl {

struct EinsumStep {
  ContractionProgram program;
  int lhs = -1;     // value id: inputs are 0..n-1, intermediates n, n+1, ...
  int rhs = -1;     // -1 for a unary step
  int result = -1;  // -1: the destination
};

struct EinsumProgram {
  int inputs = 0;
  std::vector<EinsumStep> steps;
  std::vector<index_t> intermediate_elements;  // per intermediate value (id - inputs)
  DimList out_shape;                           // the destination's shape (spec.output order)
};

/// Plans `spec` over operand layouts. `dest_strides` are the destination's strides over
/// spec.output (null: compact column-major). Throws OpError on any inconsistency; nothing runs.
EinsumProgram plan_einsum(const ops::EinsumSpec& spec, const RawLayout* inputs, const index_t* dest_strides,
                          const char* where, PlanOptions options = {});

/// The shape of spec's output for these operand layouts (validates like plan_einsum).
DimList einsum_output_shape(const ops::EinsumSpec& spec, const RawLayout* inputs, const char* where);

/// Runs one contraction program (a, b borrowed; b null for a unary program). Scratch from ctx.
template <class T>
void run_contraction(const OpContext& ctx, const ContractionProgram& program, const T* a, const T* b,
                     T* dest);

/// Runs an einsum program over borrowed inputs into the destination.
template <class T>
void run_einsum(const OpContext& ctx, const EinsumProgram& program, const T* const* inputs, T* dest);

/// The batched-GEMM route of a contraction step with batch labels: C_i = A_i B_i for `count` items
/// (matrices given by element strides, items `bs_*` apart), through the batched concern's route
/// resolution (the session's batch policy) and item kernels. Defined in contraction_batched.cpp.
template <class T>
void batched_gemm_items(Session& session, index_t m, index_t n, index_t k, index_t count, const T* a,
                        const MatrixForm& af, index_t bs_a, const T* b, const MatrixForm& bf, index_t bs_b,
                        T* c, const MatrixForm& cf, index_t bs_c);
/// One large GEMM (the batched concern's KokkosBlas::gemm path) on the target's space.
template <class T>
void large_gemm(const ExecTarget& target, index_t m, index_t n, index_t k, const T* a, const MatrixForm& af,
                const T* b, const MatrixForm& bf, T* c, const MatrixForm& cf);

}  // namespace tfbench::impl
