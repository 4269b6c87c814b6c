#pragma once
// Erased elementwise operations: binary (add, sub, multiply, axpby), unary (copy, scale, negate,
// conjugate), abs (complex -> real) and comparisons (-> bool). Operands have equal shapes; strides
// are free (zero strides broadcast reads). The destination may be exactly one of the inputs.

#include "tfbench/engine/ops/impl/erased.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"
#include "tfbench/engine/ops/scalar.hpp"

namespace tfbench::impl {

/// Result dtype of abs: the real dtype of a complex input, else the input's.
inline DType abs_dtype(DType in) {
  return real_dtype(in);
}

/// Validates a binary op (out may be null: allocating call, checked against a and b only).
void check_elementwise_binary(const char* where, const OpContext& ctx, const TensorRead& a,
                              const TensorRead& b, const DestRef* out, DType out_dtype);
void elementwise_binary(const OpContext& ctx, BinaryKind kind, ops::Scalar alpha, ops::Scalar beta,
                        const TensorRead& a, const TensorRead& b, const DestRef& out);
void elementwise_compare(const OpContext& ctx, CompareKind kind, const TensorRead& a, const TensorRead& b,
                         const DestRef& out);

void check_elementwise_unary(const char* where, const OpContext& ctx, const TensorRead& a, const DestRef* out,
                             DType out_dtype);
void elementwise_unary(const OpContext& ctx, UnaryKind kind, ops::Scalar alpha, const TensorRead& a,
                       const DestRef& out);
void elementwise_abs(const OpContext& ctx, const TensorRead& a, const DestRef& out);
/// out = value everywhere (never reads out).
void elementwise_fill(const OpContext& ctx, ops::Scalar value, const DestRef& out);

}  // namespace tfbench::impl
