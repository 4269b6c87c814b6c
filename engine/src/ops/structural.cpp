// Erased sum over axes and permuting / strided copies.

#include <string>

#include "tfbench/engine/ops/impl/elementwise_erased.hpp"
#include "tfbench/engine/ops/impl/structural_erased.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

/// FlagList of the summed axes; throws InvalidAxis on a repeated or out-of-range axis.
FlagList axis_flags(const char* where, std::size_t rank, Span<const int> axes) {
  FlagList flags;
  if (rank > static_cast<std::size_t>(kMaxOpRank))
    throw OpError(OpErrorCode::Unsupported, where, "rank above " + std::to_string(kMaxOpRank));
  flags.resize(rank, false);
  for (int axis : axes) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank)
      throw OpError(OpErrorCode::InvalidAxis, where,
                    "axis " + std::to_string(axis) + " is outside [0, " + std::to_string(rank) + ")");
    if (flags[axis])
      throw OpError(OpErrorCode::InvalidAxis, where, "axis " + std::to_string(axis) + " repeats");
    flags[axis] = true;
  }
  return flags;
}

// A caller-owned destination of a one-operand operation: the operand's dtype, the result's shape,
// reachable by the session's kernels, and no overlap with the operand.
void check_destination(const char* where, const OpContext& ctx, const TensorRead& a, const Shape& shape,
                       const DestRef& out) {
  check_same_dtype(where, out.dtype, a.dtype(), "destination dtype differs from the operand's");
  check_same_shape(where, out.shape, Span<const Index>(shape.data(), shape.size()),
                   "destination shape differs from the result's");
  check_accessible(where, ctx.target, out.space, "the destination");
  check_no_overlap(where, out, a, false);
}

}  // namespace

Shape check_sum(const char* where, const OpContext& ctx, const TensorRead& a, Span<const int> axes,
                const DestRef* out) {
  check_numeric(where, a.dtype());
  check_accessible(where, ctx.target, a.space(), "the operand");
  const FlagList flags = axis_flags(where, a.rank(), axes);
  Shape shape;
  for (std::size_t d = 0; d < a.rank(); ++d)
    if (!flags[d]) shape.push_back(a.shape()[d]);
  if (out) check_destination(where, ctx, a, shape, *out);
  return shape;
}

void sum_axes(const OpContext& ctx, const TensorRead& a, Span<const int> axes, const DestRef& out) {
  const FlagList flags = axis_flags("ops::sum", a.rank(), axes);
  const StrideList so = strides_of(out.layout()), sa = strides_of(raw_layout(a));
  dispatch_numeric(a.dtype(), "ops::sum", [&](auto tag) {
    using T = decltype(tag);
    run_sum<T>(ctx.target, T(1), a.shape().data(), static_cast<int>(a.rank()), flags.data(),
               {static_cast<T*>(out.data), so.data()}, {static_cast<const T*>(element_zero(a)), sa.data()});
  });
}

Shape check_permute(const char* where, const OpContext& ctx, const TensorRead& a, Span<const int> perm,
                    const DestRef* out) {
  check_accessible(where, ctx.target, a.space(), "the operand");
  if (perm.size() != a.rank())
    throw OpError(OpErrorCode::RankMismatch, where,
                  std::to_string(perm.size()) + " axes in the permutation of a rank-" +
                      std::to_string(a.rank()) + " operand");
  const FlagList seen = axis_flags(where, a.rank(), perm);
  (void)seen;
  Shape shape;
  for (int p : perm) shape.push_back(a.shape()[p]);
  if (out) check_destination(where, ctx, a, shape, *out);
  return shape;
}

void permute_copy(const OpContext& ctx, const TensorRead& a, Span<const int> perm, const DestRef& out) {
  // The read with its axes permuted is a strided copy into the destination's layout.
  const StrideList sa = strides_of(raw_layout(a));
  StrideList permuted;
  DimList shape;
  for (int p : perm) {
    permuted.push_back(sa[p]);
    shape.push_back(a.shape()[p]);
  }
  const StrideList so = strides_of(out.layout());
  const int rank = static_cast<int>(perm.size());
  const void* src = element_zero(a);
  switch (size_of(a.dtype())) {
    case 1:
      return run_unary<bool>(ctx.target, UnaryKind::Copy, false, shape.data(), rank,
                             {static_cast<bool*>(out.data), so.data()},
                             {static_cast<const bool*>(src), permuted.data()});
    case 4:
      return run_unary<std::int32_t>(ctx.target, UnaryKind::Copy, 0, shape.data(), rank,
                                     {static_cast<std::int32_t*>(out.data), so.data()},
                                     {static_cast<const std::int32_t*>(src), permuted.data()});
    case 8:
      return run_unary<std::int64_t>(ctx.target, UnaryKind::Copy, 0, shape.data(), rank,
                                     {static_cast<std::int64_t*>(out.data), so.data()},
                                     {static_cast<const std::int64_t*>(src), permuted.data()});
    default:
      return run_unary<Kokkos::complex<double>>(
          ctx.target, UnaryKind::Copy, Kokkos::complex<double>(0), shape.data(), rank,
          {static_cast<Kokkos::complex<double>*>(out.data), so.data()},
          {static_cast<const Kokkos::complex<double>*>(src), permuted.data()});
  }
}

}  // namespace tfbench::impl
