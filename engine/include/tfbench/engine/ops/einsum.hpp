#pragma once
// Einstein summation over one, two or more operands (see einsum_spec.hpp for the notation).
//
//   auto c = ops::einsum(s, "ik,kj->ij", a, b);        // binary: at most one GEMM
//   auto d = ops::einsum(s, "ij,jk,kl->il", a, b, c);  // N-ary: greedy pairwise path
//   ops::einsum_into(s, out, "bij,bjk->bik", a, b);    // out: any injective layout
//
// Binary contractions classify their labels before lowering: with no contracted label (an
// all-batch contraction included) the result is an elementwise product written in place; tiny items
// run a direct strided kernel; otherwise an operand already compact in an order the GEMM can use
// (or its transpose) is borrowed, the others are packed (permuted, or reduced over labels only they
// carry) into session scratch, and one GEMM (or one per batch item) writes the destination directly
// when its layout allows, else a scratch product is copied into it. Routes are counted in
// contraction_stats(). Operands of one element type: float, double, complex<double>.

#include <string_view>

#include "tfbench/engine/ops/contraction_stats.hpp"
#include "tfbench/engine/ops/einsum_spec.hpp"
#include "tfbench/engine/ops/impl/einsum_erased.hpp"
#include "tfbench/engine/ops/impl/facade.hpp"

namespace tfbench::ops {

namespace detail {

template <class T, class Rep>
Tensor<T, DynRank, Rep> einsum_reads(Session& s, const EinsumSpec& spec,
                                     Span<const TensorRead* const> reads) {
  impl::SessionScratch scratch(s);
  const impl::OpContext ctx{impl::exec_target(s), &scratch, impl::contraction_uses_blas(s, "ops::einsum"),
                            &s};
  Shape shape = impl::check_einsum("ops::einsum", ctx, spec, reads, nullptr);
  impl::check_same_dtype("ops::einsum", reads[0]->dtype(), dtype_of<T>(), "operand vs result element type");
  impl::check_output_rep<Rep>("ops::einsum", s);
  impl::Output<T, DynRank, Rep> out(s, std::move(shape));
  impl::einsum(ctx, spec, reads, out.dest());
  return std::move(out).publish(s);
}

template <class O>
void einsum_into_reads(Session& s, O&& out, const EinsumSpec& spec, Span<const TensorRead* const> reads) {
  const impl::DestRef d = impl::as_dest(out);
  impl::SessionScratch scratch(s);
  const impl::OpContext ctx{impl::exec_target(s), &scratch,
                            impl::contraction_uses_blas(s, "ops::einsum_into"), &s};
  impl::check_einsum("ops::einsum_into", ctx, spec, reads, &d);
  impl::einsum(ctx, spec, reads, d);
  impl::complete(s);
}

}  // namespace detail

template <class A, class... More>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> einsum(Session& s, const EinsumSpec& spec, const A& a,
                                                             const More&... more) {
  static_assert((std::is_same<impl::element_of<A>, impl::element_of<More>>::value && ...),
                "einsum operands have one element type");
  const TensorRead reads[] = {TensorRead(a), TensorRead(more)...};
  const TensorRead* ptrs[1 + sizeof...(More)];
  for (std::size_t i = 0; i < 1 + sizeof...(More); ++i) ptrs[i] = &reads[i];
  return detail::einsum_reads<impl::element_of<A>, impl::rep_of<A>>(
      s, spec, Span<const TensorRead* const>(ptrs, 1 + sizeof...(More)));
}
template <class A, class... More>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> einsum(Session& s, std::string_view spec, const A& a,
                                                             const More&... more) {
  return einsum(s, parse_einsum(spec), a, more...);
}

/// A runtime number of erased operands; the result is a Dynamic tensor of element type T.
template <class T>
Tensor<T> einsum_n(Session& s, std::string_view spec, Span<const TensorRead> operands) {
  impl::FixedVec<const TensorRead*, 2 * impl::kMaxOpRank> ptrs;
  for (const TensorRead& r : operands) ptrs.push_back(&r);
  return detail::einsum_reads<T, Dynamic>(s, parse_einsum(spec),
                                          Span<const TensorRead* const>(ptrs.data(), ptrs.size()));
}

template <class O, class A, class... More>
void einsum_into(Session& s, O&& out, const EinsumSpec& spec, const A& a, const More&... more) {
  const TensorRead reads[] = {impl::as_read(a), impl::as_read(more)...};
  const TensorRead* ptrs[1 + sizeof...(More)];
  for (std::size_t i = 0; i < 1 + sizeof...(More); ++i) ptrs[i] = &reads[i];
  detail::einsum_into_reads(s, out, spec, Span<const TensorRead* const>(ptrs, 1 + sizeof...(More)));
}
template <class O, class A, class... More>
void einsum_into(Session& s, O&& out, std::string_view spec, const A& a, const More&... more) {
  einsum_into(s, out, parse_einsum(spec), a, more...);
}

}  // namespace tfbench::ops
