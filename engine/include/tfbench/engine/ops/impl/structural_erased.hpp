#pragma once
// Erased reductions and data movement: sum over axes, permute (into a compact or strided
// destination), strided copy. Result shapes are computed by the check_* functions.

#include "tfbench/engine/ops/impl/erased.hpp"
#include "tfbench/engine/storage/rank.hpp"

namespace tfbench::impl {

/// Validates sum over `axes` (distinct, in range) and returns the result shape (kept axes in order).
Shape check_sum(const char* where, const OpContext& ctx, const TensorRead& a, Span<const int> axes,
                const DestRef* out);
void sum_axes(const OpContext& ctx, const TensorRead& a, Span<const int> axes, const DestRef& out);

/// Validates a permutation (axis d of the result is axis perm[d] of a) and returns the result shape.
Shape check_permute(const char* where, const OpContext& ctx, const TensorRead& a, Span<const int> perm,
                    const DestRef* out);
void permute_copy(const OpContext& ctx, const TensorRead& a, Span<const int> perm, const DestRef& out);

}  // namespace tfbench::impl
