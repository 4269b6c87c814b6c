#pragma once
// Elementwise operations on equal-shaped operands of any layout (strides free, zero strides
// broadcast reads): add, sub, multiply, axpby, scale, negate, copy, abs (complex -> real) and
// compare (-> bool). Element types: float, double, complex<double> (std:: or Kokkos::); copies take
// any dtype.
//
//   auto c = ops::add(s, a, b);            // allocating: a session output lease, published when done
//   ops::add_into(s, c_view_mut, a, b);    // overwrites c without reading it; c may be a or b itself
//
// The allocating result has the first operand's rank and representation (Host/Device/Dynamic).
// Validation (dtype, shape, memory, aliasing) happens before anything is written: on OpError the
// destination of an `_into` call is untouched. Operands are borrowed for the call only.

#include "tfbench/engine/ops/impl/elementwise_erased.hpp"
#include "tfbench/engine/ops/impl/facade.hpp"
#include "tfbench/engine/ops/impl/owner_fast_path.hpp"

namespace tfbench::ops {

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };

namespace detail {

template <class T, bool = complex_traits<T>::is_complex>
struct real_element {
  using type = T;
};
template <class T>
struct real_element<T, true> {
  using type = typename complex_traits<T>::real_type;
};

inline impl::CompareKind compare_kind(CompareOp op) {
  return static_cast<impl::CompareKind>(static_cast<int>(op));
}

template <class A, class B>
auto binary(const char* where, Session& s, impl::BinaryKind kind, Scalar alpha, Scalar beta, const A& a,
            const B& b) {
  using T = impl::element_of<A>;
  using R = impl::rank_of_t<A>;
  using Rep = impl::rep_of<A>;
  static_assert(std::is_same<T, impl::element_of<B>>::value, "operands of one element type");
  const TensorRead ra(a), rb(b);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_binary(where, ctx, ra, rb, nullptr, dtype_of<T>());
  impl::check_output_rep<Rep>(where, s);
  impl::Output<T, R, Rep> out(s, impl::extents_of<R>(ra.shape(), where));
  impl::elementwise_binary(ctx, kind, alpha, beta, ra, rb, out.dest());
  return std::move(out).publish(s);
}

/// Runs the owners' fast path (impl/owner_fast_path.hpp) when it applies; false otherwise.
template <class O, class A, class B>
bool binary_owners(Session& s, impl::BinaryKind kind, Scalar alpha, Scalar beta, const O& out, const A& a,
                   const B& b) {
  if constexpr (impl::kernel_owners<O, A, B>) {
    using K = typename impl::kernel_element<impl::owner_element_t<A>>::type;
    if (!impl::is_complex<K>::value && !(alpha.is_real() && beta.is_real())) return false;
    const impl::ExecTarget target = impl::exec_target(s);
    const impl::index_t n = impl::owner_extent(target, out, a, b);
    if (n < 0) return false;
    impl::run_flat_binary<K>(target, kind, alpha.as<K>(), beta.as<K>(), n,
                             static_cast<K*>(const_cast<void*>(impl::owner_data(out))),
                             static_cast<const K*>(impl::owner_data(a)),
                             static_cast<const K*>(impl::owner_data(b)));
    impl::complete(target);
    return true;
  } else {
    return false;
  }
}

/// The erased path of binary_into (any operand that is not an owner of the fast path's kind).
template <class O, class A, class B>
void binary_into_erased(const char* where, Session& s, impl::BinaryKind kind, Scalar alpha, Scalar beta,
                        O&& out, const A& a, const B& b) {
  const auto ra = impl::as_read(a);
  const auto rb = impl::as_read(b);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_binary(where, ctx, ra, rb, &d, ra.dtype());
  impl::elementwise_binary(ctx, kind, alpha, beta, ra, rb, d);
  impl::complete(ctx.target);
}

template <class O, class A, class B>
void binary_into(const char* where, Session& s, impl::BinaryKind kind, Scalar alpha, Scalar beta, O&& out,
                 const A& a, const B& b) {
  if (!binary_owners(s, kind, alpha, beta, out, a, b))
    binary_into_erased(where, s, kind, alpha, beta, std::forward<O>(out), a, b);
}

template <class A>
auto unary(const char* where, Session& s, impl::UnaryKind kind, Scalar alpha, const A& a) {
  using T = impl::element_of<A>;
  using R = impl::rank_of_t<A>;
  using Rep = impl::rep_of<A>;
  const TensorRead ra(a);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_unary(where, ctx, ra, nullptr, dtype_of<T>());
  if (kind != impl::UnaryKind::Copy) impl::check_numeric(where, ra.dtype());
  impl::check_output_rep<Rep>(where, s);
  impl::Output<T, R, Rep> out(s, impl::extents_of<R>(ra.shape(), where));
  impl::elementwise_unary(ctx, kind, alpha, ra, out.dest());
  return std::move(out).publish(s);
}

template <class O, class A>
bool unary_owners(Session& s, impl::UnaryKind kind, Scalar alpha, const O& out, const A& a) {
  if constexpr (impl::kernel_owners<O, A>) {
    using K = typename impl::kernel_element<impl::owner_element_t<A>>::type;
    if (!impl::is_complex<K>::value && !alpha.is_real()) return false;
    const impl::ExecTarget target = impl::exec_target(s);
    const impl::index_t n = impl::owner_extent(target, out, a);
    if (n < 0) return false;
    impl::run_flat_unary<K>(target, kind, alpha.as<K>(), n,
                            static_cast<K*>(const_cast<void*>(impl::owner_data(out))),
                            static_cast<const K*>(impl::owner_data(a)));
    impl::complete(target);
    return true;
  } else {
    return false;
  }
}

/// The erased path of unary_into.
template <class O, class A>
void unary_into_erased(const char* where, Session& s, impl::UnaryKind kind, Scalar alpha, O&& out,
                       const A& a) {
  const auto ra = impl::as_read(a);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_unary(where, ctx, ra, &d, ra.dtype());
  if (kind != impl::UnaryKind::Copy) impl::check_numeric(where, ra.dtype());
  impl::elementwise_unary(ctx, kind, alpha, ra, d);
  impl::complete(ctx.target);
}

template <class O, class A>
void unary_into(const char* where, Session& s, impl::UnaryKind kind, Scalar alpha, O&& out, const A& a) {
  if (!unary_owners(s, kind, alpha, out, a))
    unary_into_erased(where, s, kind, alpha, std::forward<O>(out), a);
}

}  // namespace detail

// ---- binary: c = a + b, a - b, a * b (elementwise), alpha a + beta b

template <class A, class B>
auto add(Session& s, const A& a, const B& b) {
  return detail::binary("ops::add", s, impl::BinaryKind::Add, 1, 0, a, b);
}
template <class A, class B>
auto sub(Session& s, const A& a, const B& b) {
  return detail::binary("ops::sub", s, impl::BinaryKind::Sub, 1, 0, a, b);
}
template <class A, class B>
auto multiply(Session& s, const A& a, const B& b) {
  return detail::binary("ops::multiply", s, impl::BinaryKind::Mul, 1, 0, a, b);
}
template <class A, class B>
auto axpby(Session& s, Scalar alpha, const A& a, Scalar beta, const B& b) {
  return detail::binary("ops::axpby", s, impl::BinaryKind::Axpby, alpha, beta, a, b);
}

template <class O, class A, class B>
void add_into(Session& s, O&& out, const A& a, const B& b) {
  detail::binary_into("ops::add_into", s, impl::BinaryKind::Add, 1, 0, out, a, b);
}
template <class O, class A, class B>
void sub_into(Session& s, O&& out, const A& a, const B& b) {
  detail::binary_into("ops::sub_into", s, impl::BinaryKind::Sub, 1, 0, out, a, b);
}
template <class O, class A, class B>
void multiply_into(Session& s, O&& out, const A& a, const B& b) {
  detail::binary_into("ops::multiply_into", s, impl::BinaryKind::Mul, 1, 0, out, a, b);
}
template <class O, class A, class B>
void axpby_into(Session& s, O&& out, Scalar alpha, const A& a, Scalar beta, const B& b) {
  detail::binary_into("ops::axpby_into", s, impl::BinaryKind::Axpby, alpha, beta, out, a, b);
}

// ---- unary: alpha a, -a, a copied (compact), |a|

template <class A>
auto scale(Session& s, Scalar alpha, const A& a) {
  return detail::unary("ops::scale", s, impl::UnaryKind::Scale, alpha, a);
}
template <class A>
auto negate(Session& s, const A& a) {
  return detail::unary("ops::negate", s, impl::UnaryKind::Neg, 0, a);
}
/// A compact copy of any view (any dtype).
template <class A>
auto copy(Session& s, const A& a) {
  return detail::unary("ops::copy", s, impl::UnaryKind::Copy, 0, a);
}

template <class O, class A>
void scale_into(Session& s, O&& out, Scalar alpha, const A& a) {
  detail::unary_into("ops::scale_into", s, impl::UnaryKind::Scale, alpha, out, a);
}
template <class O, class A>
void negate_into(Session& s, O&& out, const A& a) {
  detail::unary_into("ops::negate_into", s, impl::UnaryKind::Neg, 0, out, a);
}
/// Strided copy: out (any injective layout) = a (any layout), same shape, any dtype.
template <class O, class A>
void copy_into(Session& s, O&& out, const A& a) {
  detail::unary_into("ops::copy_into", s, impl::UnaryKind::Copy, 0, out, a);
}

/// |a|: real for complex operands (complex<double> -> double).
template <class A>
auto abs(Session& s, const A& a) {
  using T = impl::element_of<A>;
  using Real = typename detail::real_element<T>::type;
  using R = impl::rank_of_t<A>;
  using Rep = impl::rep_of<A>;
  const TensorRead ra(a);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_unary("ops::abs", ctx, ra, nullptr, dtype_of<Real>());
  impl::check_numeric("ops::abs", ra.dtype());
  impl::check_output_rep<Rep>("ops::abs", s);
  impl::Output<Real, R, Rep> out(s, impl::extents_of<R>(ra.shape(), "ops::abs"));
  impl::elementwise_abs(ctx, ra, out.dest());
  return std::move(out).publish(s);
}
template <class O, class A>
void abs_into(Session& s, O&& out, const A& a) {
  const auto ra = impl::as_read(a);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_unary("ops::abs_into", ctx, ra, &d, impl::abs_dtype(ra.dtype()));
  impl::check_numeric("ops::abs_into", ra.dtype());
  impl::elementwise_abs(ctx, ra, d);
  impl::complete(ctx.target);
}

/// a op b elementwise, as bool. Complex operands support Eq and Ne only.
template <class A, class B>
auto compare(Session& s, CompareOp op, const A& a, const B& b) {
  using R = impl::rank_of_t<A>;
  using Rep = impl::rep_of<A>;
  static_assert(std::is_same<impl::element_of<A>, impl::element_of<B>>::value,
                "operands of one element type");
  const TensorRead ra(a), rb(b);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_binary("ops::compare", ctx, ra, rb, nullptr, DType::Bool);
  impl::check_output_rep<Rep>("ops::compare", s);
  impl::Output<bool, R, Rep> out(s, impl::extents_of<R>(ra.shape(), "ops::compare"));
  impl::elementwise_compare(ctx, detail::compare_kind(op), ra, rb, out.dest());
  return std::move(out).publish(s);
}
template <class O, class A, class B>
void compare_into(Session& s, O&& out, CompareOp op, const A& a, const B& b) {
  const auto ra = impl::as_read(a);
  const auto rb = impl::as_read(b);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_elementwise_binary("ops::compare_into", ctx, ra, rb, &d, DType::Bool);
  impl::elementwise_compare(ctx, detail::compare_kind(op), ra, rb, d);
  impl::complete(ctx.target);
}

/// A Dynamic tensor of `shape` in the session's memory with every element `value`.
template <class T>
Tensor<T> full(Session& s, Span<const Index> shape, Scalar value) {
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_numeric("ops::full", dtype_of<T>());
  impl::Output<T, DynRank, Dynamic> out(s, Shape(shape));
  impl::elementwise_fill(ctx, value, out.dest());
  return std::move(out).publish(s);
}
template <class O>
void fill_into(Session& s, O&& out, Scalar value) {
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_numeric("ops::fill_into", d.dtype);
  impl::check_accessible("ops::fill_into", ctx.target, d.space, "the destination");
  impl::elementwise_fill(ctx, value, d);
  impl::complete(ctx.target);
}

}  // namespace tfbench::ops
