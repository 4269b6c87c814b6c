#pragma once
// Erased einsum and tensordot: validation against the operands (count, ranks, label extents, dtype,
// memory) and the destination, the plan (impl::plan_einsum), and one dtype dispatch into the typed
// program runner. Tensordot is an einsum whose labels are generated from its axes.

#include "tfbench/engine/ops/einsum_spec.hpp"
#include "tfbench/engine/ops/impl/einsum_program.hpp"
#include "tfbench/engine/ops/impl/erased.hpp"
#include "tfbench/engine/storage/rank.hpp"

namespace tfbench::impl {

/// Validates operands (and `out` when given) against `spec`; returns the result shape.
Shape check_einsum(const char* where, const OpContext& ctx, const ops::EinsumSpec& spec,
                   Span<const TensorRead* const> inputs, const DestRef* out);
/// Plans and runs `spec` (validated) into `out`.
void einsum(const OpContext& ctx, const ops::EinsumSpec& spec, Span<const TensorRead* const> inputs,
            const DestRef& out);
/// Runs a program planned for exactly these operand layouts and this destination layout.
void run_program(const OpContext& ctx, const EinsumProgram& program, DType dtype,
                 Span<const TensorRead* const> inputs, const DestRef& out);

/// The einsum spec of tensordot: a's axes `axes_a` contracted with b's `axes_b` (pairwise); the
/// result has a's free axes in order, then b's. Throws InvalidAxis / ShapeMismatch / InvalidSpec.
ops::EinsumSpec tensordot_spec(const char* where, const TensorRead& a, const TensorRead& b,
                               Span<const int> axes_a, Span<const int> axes_b);

}  // namespace tfbench::impl
