// Erased elementwise operations: validation, then one dtype dispatch into the typed kernels.

#include <string>

#include "tfbench/engine/ops/impl/elementwise_erased.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

template <class T>
StridedIn<T> in_of(const TensorRead& r, const StrideList& s) {
  return {static_cast<const T*>(element_zero(r)), s.data()};
}
template <class T>
StridedOut<T> out_of(const DestRef& d, const StrideList& s) {
  return {static_cast<T*>(d.data), s.data()};
}

void check_scalar_real(const char* where, DType dtype, ops::Scalar s) {
  if (!tfbench::is_complex(dtype) && !s.is_real())
    throw OpError(OpErrorCode::DTypeMismatch, where,
                  std::string("a complex coefficient for a real dtype (") + name(dtype) + ")");
}

}  // namespace

void check_elementwise_binary(const char* where, const OpContext& ctx, const TensorRead& a,
                              const TensorRead& b, const DestRef* out, DType out_dtype) {
  check_same_dtype(where, a.dtype(), b.dtype(), "operand dtypes differ");
  check_same_shape(where, a.shape(), b.shape(), "operand shapes differ");
  check_accessible(where, ctx.target, a.space(), "the first operand");
  check_accessible(where, ctx.target, b.space(), "the second operand");
  check_numeric(where, a.dtype());
  if (!out) return;
  check_same_dtype(where, out->dtype, out_dtype, "destination dtype differs from the result's");
  check_same_shape(where, out->shape, a.shape(), "destination shape differs from the operands'");
  check_accessible(where, ctx.target, out->space, "the destination");
  check_no_overlap(where, *out, a, true);
  check_no_overlap(where, *out, b, true);
}

void elementwise_binary(const OpContext& ctx, BinaryKind kind, ops::Scalar alpha, ops::Scalar beta,
                        const TensorRead& a, const TensorRead& b, const DestRef& out) {
  check_scalar_real("ops::axpby", a.dtype(), alpha);
  check_scalar_real("ops::axpby", a.dtype(), beta);
  const StrideList so = strides_of(out.layout()), sa = strides_of(raw_layout(a)),
                   sb = strides_of(raw_layout(b));
  dispatch_numeric(a.dtype(), "ops::elementwise", [&](auto tag) {
    using T = decltype(tag);
    run_binary<T>(ctx.target, kind, alpha.as<T>(), beta.as<T>(), a.shape().data(), static_cast<int>(a.rank()),
                  out_of<T>(out, so), in_of<T>(a, sa), in_of<T>(b, sb));
  });
}

void elementwise_compare(const OpContext& ctx, CompareKind kind, const TensorRead& a, const TensorRead& b,
                         const DestRef& out) {
  if (tfbench::is_complex(a.dtype()) && kind != CompareKind::Eq && kind != CompareKind::Ne)
    throw OpError(OpErrorCode::Unsupported, "ops::compare", "complex numbers have no order (use eq or ne)");
  const StrideList so = strides_of(out.layout()), sa = strides_of(raw_layout(a)),
                   sb = strides_of(raw_layout(b));
  dispatch_numeric(a.dtype(), "ops::compare", [&](auto tag) {
    using T = decltype(tag);
    run_compare<T>(ctx.target, kind, a.shape().data(), static_cast<int>(a.rank()), out_of<bool>(out, so),
                   in_of<T>(a, sa), in_of<T>(b, sb));
  });
}

void check_elementwise_unary(const char* where, const OpContext& ctx, const TensorRead& a, const DestRef* out,
                             DType out_dtype) {
  check_accessible(where, ctx.target, a.space(), "the operand");
  if (!out) return;
  check_same_dtype(where, out->dtype, out_dtype, "destination dtype differs from the result's");
  check_same_shape(where, out->shape, a.shape(), "destination shape differs from the operand's");
  check_accessible(where, ctx.target, out->space, "the destination");
  check_no_overlap(where, *out, a, true);
}

void elementwise_unary(const OpContext& ctx, UnaryKind kind, ops::Scalar alpha, const TensorRead& a,
                       const DestRef& out) {
  const StrideList so = strides_of(out.layout()), sa = strides_of(raw_layout(a));
  const Index* shape = a.shape().data();
  const int rank = static_cast<int>(a.rank());
  if (kind == UnaryKind::Copy) {
    // Copies move bits: any dtype, by element size.
    switch (size_of(a.dtype())) {
      case 1:
        return run_unary<bool>(ctx.target, kind, false, shape, rank, out_of<bool>(out, so),
                               in_of<bool>(a, sa));
      case 4:
        return run_unary<std::int32_t>(ctx.target, kind, 0, shape, rank, out_of<std::int32_t>(out, so),
                                       in_of<std::int32_t>(a, sa));
      case 8:
        return run_unary<std::int64_t>(ctx.target, kind, 0, shape, rank, out_of<std::int64_t>(out, so),
                                       in_of<std::int64_t>(a, sa));
      case 16:
        return run_unary<Kokkos::complex<double>>(ctx.target, kind, 0.0, shape, rank,
                                                  out_of<Kokkos::complex<double>>(out, so),
                                                  in_of<Kokkos::complex<double>>(a, sa));
      default:
        break;
    }
  }
  check_scalar_real("ops::scale", a.dtype(), alpha);
  dispatch_numeric(a.dtype(), "ops::elementwise", [&](auto tag) {
    using T = decltype(tag);
    run_unary<T>(ctx.target, kind, alpha.as<T>(), shape, rank, out_of<T>(out, so), in_of<T>(a, sa));
  });
}

void elementwise_abs(const OpContext& ctx, const TensorRead& a, const DestRef& out) {
  const StrideList so = strides_of(out.layout()), sa = strides_of(raw_layout(a));
  dispatch_numeric(a.dtype(), "ops::abs", [&](auto tag) {
    using T = decltype(tag);
    run_abs<T>(ctx.target, a.shape().data(), static_cast<int>(a.rank()), out_of<real_t<T>>(out, so),
               in_of<T>(a, sa));
  });
}

void elementwise_fill(const OpContext& ctx, ops::Scalar value, const DestRef& out) {
  check_scalar_real("ops::full", out.dtype, value);
  const StrideList so = strides_of(out.layout());
  dispatch_numeric(out.dtype, "ops::full", [&](auto tag) {
    using T = decltype(tag);
    run_fill<T>(ctx.target, value.as<T>(), out.shape.data(), out.rank(), out_of<T>(out, so));
  });
}

}  // namespace tfbench::impl
