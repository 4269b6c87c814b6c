// Erased elementwise operations: validation, then one dtype dispatch into the typed kernels.

#include <string>

#include "tfbench/engine/ops/impl/elementwise_erased.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

/// The loop an elementwise operation runs over its NOps operands (operand 0 written). When every
/// operand is compact column-major it is one flat axis of unit stride: no stride lists to build and
/// nothing for the kernels to plan, which is most of what a small operation costs at this boundary.
template <int NOps>
class ElementLoop {
 public:
  ElementLoop(Span<const Index> shape, const RawLayout (&layouts)[NOps]) : shape_(shape.data()) {
    rank_ = static_cast<int>(shape.size());
    bool flat = true;
    for (const RawLayout& l : layouts) flat = flat && is_compact_col_major(l);
    if (flat) {
      flat_extent_ = element_count(shape_, rank_);
      return;
    }
    for (int k = 0; k < NOps; ++k) strides_[k] = strides_of(layouts[k]);
  }
  bool flat() const { return flat_extent_ >= 0; }
  const index_t* shape() const { return flat() ? &flat_extent_ : shape_; }
  int rank() const { return flat() ? 1 : rank_; }
  const index_t* strides(int k) const { return flat() ? &kUnitStride : strides_[k].data(); }

  template <class T>
  StridedIn<T> in(int k, const TensorRead& r) const {
    return {static_cast<const T*>(element_zero(r)), strides(k)};
  }
  template <class T>
  StridedOut<T> out(const DestRef& d) const {
    return {static_cast<T*>(d.data), strides(0)};
  }

 private:
  const index_t* shape_;
  int rank_ = 0;
  index_t flat_extent_ = -1;
  StrideList strides_[NOps];
};

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
  const ElementLoop<3> loop(a.shape(), {out.layout(), raw_layout(a), raw_layout(b)});
  dispatch_numeric(a.dtype(), "ops::elementwise", [&](auto tag) {
    using T = decltype(tag);
    run_binary<T>(ctx.target, kind, alpha.as<T>(), beta.as<T>(), loop.shape(), loop.rank(),
                  loop.template out<T>(out), loop.template in<T>(1, a), loop.template in<T>(2, b));
  });
}

void elementwise_compare(const OpContext& ctx, CompareKind kind, const TensorRead& a, const TensorRead& b,
                         const DestRef& out) {
  if (tfbench::is_complex(a.dtype()) && kind != CompareKind::Eq && kind != CompareKind::Ne)
    throw OpError(OpErrorCode::Unsupported, "ops::compare", "complex numbers have no order (use eq or ne)");
  const ElementLoop<3> loop(a.shape(), {out.layout(), raw_layout(a), raw_layout(b)});
  dispatch_numeric(a.dtype(), "ops::compare", [&](auto tag) {
    using T = decltype(tag);
    run_compare<T>(ctx.target, kind, loop.shape(), loop.rank(), loop.template out<bool>(out),
                   loop.template in<T>(1, a), loop.template in<T>(2, b));
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
  const ElementLoop<2> loop(a.shape(), {out.layout(), raw_layout(a)});
  const Index* shape = loop.shape();
  const int rank = loop.rank();
  if (kind == UnaryKind::Copy) {
    // Copies move bits: any dtype, by element size.
    switch (size_of(a.dtype())) {
      case 1:
        return run_unary<bool>(ctx.target, kind, false, shape, rank, loop.out<bool>(out),
                               loop.in<bool>(1, a));
      case 4:
        return run_unary<std::int32_t>(ctx.target, kind, 0, shape, rank, loop.out<std::int32_t>(out),
                                       loop.in<std::int32_t>(1, a));
      case 8:
        return run_unary<std::int64_t>(ctx.target, kind, 0, shape, rank, loop.out<std::int64_t>(out),
                                       loop.in<std::int64_t>(1, a));
      case 16:
        return run_unary<Kokkos::complex<double>>(ctx.target, kind, 0.0, shape, rank,
                                                  loop.out<Kokkos::complex<double>>(out),
                                                  loop.in<Kokkos::complex<double>>(1, a));
      default:
        break;
    }
  }
  check_scalar_real("ops::scale", a.dtype(), alpha);
  dispatch_numeric(a.dtype(), "ops::elementwise", [&](auto tag) {
    using T = decltype(tag);
    run_unary<T>(ctx.target, kind, alpha.as<T>(), shape, rank, loop.out<T>(out), loop.in<T>(1, a));
  });
}

void elementwise_abs(const OpContext& ctx, const TensorRead& a, const DestRef& out) {
  const ElementLoop<2> loop(a.shape(), {out.layout(), raw_layout(a)});
  dispatch_numeric(a.dtype(), "ops::abs", [&](auto tag) {
    using T = decltype(tag);
    run_abs<T>(ctx.target, loop.shape(), loop.rank(), loop.template out<real_t<T>>(out),
               loop.template in<T>(1, a));
  });
}

void elementwise_fill(const OpContext& ctx, ops::Scalar value, const DestRef& out) {
  check_scalar_real("ops::full", out.dtype, value);
  const ElementLoop<1> loop(out.shape, {out.layout()});
  dispatch_numeric(out.dtype, "ops::full", [&](auto tag) {
    using T = decltype(tag);
    run_fill<T>(ctx.target, value.as<T>(), loop.shape(), loop.rank(), loop.template out<T>(out));
  });
}

}  // namespace tfbench::impl
