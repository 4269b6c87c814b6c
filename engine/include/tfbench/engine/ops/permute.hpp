#pragma once
// Permute: a compact tensor whose axis d is axis perm[d] of the operand (any dtype). One strided
// copy kernel: rows along the destination's fastest axis, or 32 x 32 tiles when the source's fastest
// axis is another one (transposes). A lazy permuted view without a copy is the storage concern's
// view().permute(perm); this materializes one, or writes it into any injective destination.
//
//   auto t = ops::permute(s, a, {1, 0});          // compact transpose
//   ops::permute_into(s, out_view, a, {2, 0, 1});

#include <initializer_list>

#include "tfbench/engine/ops/impl/facade.hpp"
#include "tfbench/engine/ops/impl/structural_erased.hpp"

namespace tfbench::ops {

template <class A>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> permute(Session& s, const A& a, Span<const int> perm) {
  using T = impl::element_of<A>;
  using Rep = impl::rep_of<A>;
  const TensorRead ra(a);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  Shape shape = impl::check_permute("ops::permute", ctx, ra, perm, nullptr);
  impl::check_output_rep<Rep>("ops::permute", s);
  impl::Output<T, DynRank, Rep> out(s, std::move(shape));
  impl::permute_copy(ctx, ra, perm, out.dest());
  return std::move(out).publish(s);
}
template <class A>
auto permute(Session& s, const A& a, std::initializer_list<int> perm) {
  return permute(s, a, Span<const int>(perm.begin(), perm.size()));
}

template <class O, class A>
void permute_into(Session& s, O&& out, const A& a, Span<const int> perm) {
  const auto ra = impl::as_read(a);
  const impl::DestRef d = impl::as_dest(out);
  const impl::OpContext ctx{impl::exec_target(s), nullptr};
  impl::check_permute("ops::permute_into", ctx, ra, perm, &d);
  impl::permute_copy(ctx, ra, perm, d);
  impl::complete(s);
}
template <class O, class A>
void permute_into(Session& s, O&& out, const A& a, std::initializer_list<int> perm) {
  permute_into(s, out, a, Span<const int>(perm.begin(), perm.size()));
}

}  // namespace tfbench::ops
