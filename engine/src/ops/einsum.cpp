// Erased einsum and tensordot.

#include <string>

#include "tfbench/engine/ops/impl/einsum_erased.hpp"
#include "tfbench/engine/ops/impl/facade.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

constexpr const char kLabels[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

}  // namespace

Shape check_einsum(const char* where, const OpContext& ctx, const ops::EinsumSpec& spec,
                   Span<const TensorRead* const> inputs, const DestRef* out) {
  if (inputs.size() != spec.inputs.size())
    throw OpError(OpErrorCode::InvalidSpec, where,
                  "'" + spec.to_string() + "' names " + std::to_string(spec.inputs.size()) + " operands, " +
                      std::to_string(inputs.size()) + " given");
  FixedVec<RawLayout, 2 * kMaxOpRank> layouts;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorRead& in = *inputs[i];
    if (i == 0) check_numeric(where, in.dtype());
    check_same_dtype(where, in.dtype(), inputs[0]->dtype(), "operand dtypes differ");
    check_accessible(where, ctx.target, in.space(), "an operand");
    layouts.push_back(raw_layout(in));
  }
  const DimList shape = einsum_output_shape(spec, layouts.data(), where);
  Shape result(shape.begin(), shape.end());
  if (out) {
    check_same_dtype(where, out->dtype, inputs[0]->dtype(), "destination dtype differs from the operands'");
    check_same_shape(where, out->shape, Span<const Index>(result.data(), result.size()),
                     "destination shape differs from the result's");
    check_accessible(where, ctx.target, out->space, "the destination");
    for (const TensorRead* in : inputs) check_no_overlap(where, *out, *in, false);
  }
  return result;
}

void run_program(const OpContext& ctx, const EinsumProgram& program, DType dtype,
                 Span<const TensorRead* const> inputs, const DestRef& out) {
  dispatch_numeric(dtype, "ops::einsum", [&](auto tag) {
    using T = decltype(tag);
    FixedVec<const T*, 2 * kMaxOpRank> data;
    for (const TensorRead* in : inputs) data.push_back(static_cast<const T*>(element_zero(*in)));
    run_einsum<T>(ctx, program, data.data(), static_cast<T*>(out.data));
  });
}

void einsum(const OpContext& ctx, const ops::EinsumSpec& spec, Span<const TensorRead* const> inputs,
            const DestRef& out) {
  FixedVec<RawLayout, 2 * kMaxOpRank> layouts;
  for (const TensorRead* in : inputs) layouts.push_back(raw_layout(*in));
  const EinsumProgram program =
      plan_einsum(spec, layouts.data(), out.compact ? nullptr : out.strides.data(), "ops::einsum",
                  {ctx.blas, ctx.session ? direct_contraction_muladds(*ctx.session)
                                         : static_cast<double>(kDirectItemWork)});
  run_program(ctx, program, inputs[0]->dtype(), inputs, out);
}

ops::EinsumSpec tensordot_spec(const char* where, const TensorRead& a, const TensorRead& b,
                               Span<const int> axes_a, Span<const int> axes_b) {
  if (axes_a.size() != axes_b.size())
    throw OpError(OpErrorCode::InvalidAxis, where,
                  std::to_string(axes_a.size()) + " axes of the first operand paired with " +
                      std::to_string(axes_b.size()) + " of the second");
  const std::size_t free_b = b.rank() - std::min(b.rank(), axes_b.size());
  if (a.rank() + free_b > sizeof(kLabels) - 1)
    throw OpError(OpErrorCode::Unsupported, where, "more than 52 distinct axes");
  ops::EinsumSpec spec;
  spec.inputs.resize(2);
  for (std::size_t d = 0; d < a.rank(); ++d) spec.inputs[0].push_back(kLabels[d]);
  spec.inputs[1].resize(b.rank(), '\0');
  auto check_axis = [&](int axis, std::size_t rank, const char* which) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank)
      throw OpError(OpErrorCode::InvalidAxis, where,
                    std::string(which) + " axis " + std::to_string(axis) + " is outside [0, " +
                        std::to_string(rank) + ")");
  };
  for (std::size_t i = 0; i < axes_a.size(); ++i) {
    check_axis(axes_a[i], a.rank(), "first operand");
    check_axis(axes_b[i], b.rank(), "second operand");
    for (std::size_t j = 0; j < i; ++j) {
      if (axes_a[j] == axes_a[i] || axes_b[j] == axes_b[i])
        throw OpError(OpErrorCode::InvalidAxis, where, "a contracted axis repeats");
    }
    if (a.shape()[axes_a[i]] != b.shape()[axes_b[i]])
      throw OpError(OpErrorCode::ShapeMismatch, where,
                    "contracted axes " + std::to_string(axes_a[i]) + " and " + std::to_string(axes_b[i]) +
                        " have extents " + std::to_string(a.shape()[axes_a[i]]) + " and " +
                        std::to_string(b.shape()[axes_b[i]]));
    spec.inputs[1][axes_b[i]] = kLabels[axes_a[i]];
  }
  std::size_t next = a.rank();
  for (std::size_t d = 0; d < a.rank(); ++d) {
    bool contracted = false;
    for (int x : axes_a) contracted |= static_cast<std::size_t>(x) == d;
    if (!contracted) spec.output.push_back(kLabels[d]);
  }
  for (std::size_t d = 0; d < b.rank(); ++d) {
    if (spec.inputs[1][d] == '\0') {
      spec.inputs[1][d] = kLabels[next++];
      spec.output.push_back(spec.inputs[1][d]);
    }
  }
  return spec;
}

}  // namespace tfbench::impl
