#pragma once
// Sums over axes: the result keeps the other axes in order (rank - number of summed axes; a sum over
// every axis is rank 0). Parallel over output elements, or one parallel reduction per output when
// there are few outputs over much data.
//
//   auto col_sums = ops::sum(s, a, {0});       // [m, n] -> [n]
//   auto total = ops::sum(s, a, {0, 1});       // -> rank 0
//   ops::sum_into(s, out, a, {1});             // out: any injective layout of the result shape

#include <initializer_list>

#include "tfbench/engine/ops/impl/facade.hpp"
#include "tfbench/engine/ops/impl/structural_erased.hpp"

namespace tfbench::ops {

template <class A>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> sum(Session& s, const A& a, Span<const int> axes) {
  using T = impl::element_of<A>;
  using Rep = impl::rep_of<A>;
  const TensorRead ra(a);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  Shape shape = impl::check_sum("ops::sum", ctx, ra, axes, nullptr);
  impl::check_output_rep<Rep>("ops::sum", s);
  impl::Output<T, DynRank, Rep> out(s, std::move(shape));
  impl::sum_axes(ctx, ra, axes, out.dest());
  return std::move(out).publish(s);
}
template <class A>
auto sum(Session& s, const A& a, std::initializer_list<int> axes) {
  return sum(s, a, Span<const int>(axes.begin(), axes.size()));
}
/// The sum of every element, as a rank-0 tensor.
template <class A>
auto sum_all(Session& s, const A& a) {
  impl::AxisList axes;
  for (std::size_t d = 0; d < impl::as_read(a).rank(); ++d) axes.push_back(static_cast<int>(d));
  return sum(s, a, Span<const int>(axes.data(), axes.size()));
}

template <class O, class A>
void sum_into(Session& s, O&& out, const A& a, Span<const int> axes) {
  const auto ra = impl::as_read(a);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_sum("ops::sum_into", ctx, ra, axes, &d);
  impl::sum_axes(ctx, ra, axes, d);
  impl::complete(s);
}
template <class O, class A>
void sum_into(Session& s, O&& out, const A& a, std::initializer_list<int> axes) {
  sum_into(s, out, a, Span<const int>(axes.begin(), axes.size()));
}

}  // namespace tfbench::ops
