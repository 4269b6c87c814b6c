#pragma once
// Tensordot: contracts axes_a[i] of a with axes_b[i] of b; the result has a's remaining axes in order,
// then b's. It is the binary einsum with generated labels, so it takes the same routes (elementwise
// product, direct kernel, borrowed or packed operands and one GEMM).
//
//   auto c = ops::tensordot(s, a, b, {1}, {0});   // matrix product
//   auto d = ops::tensordot(s, a, b, 2);          // a's last 2 axes with b's first 2

#include <initializer_list>

#include "tfbench/engine/ops/einsum.hpp"

namespace tfbench::ops {

template <class A, class B>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> tensordot(Session& s, const A& a, const B& b,
                                                                Span<const int> axes_a,
                                                                Span<const int> axes_b) {
  const TensorRead ra(a), rb(b);
  const EinsumSpec spec = impl::tensordot_spec("ops::tensordot", ra, rb, axes_a, axes_b);
  return einsum(s, spec, a, b);
}
template <class A, class B>
auto tensordot(Session& s, const A& a, const B& b, std::initializer_list<int> axes_a,
               std::initializer_list<int> axes_b) {
  return tensordot(s, a, b, Span<const int>(axes_a.begin(), axes_a.size()),
                   Span<const int>(axes_b.begin(), axes_b.size()));
}
/// NumPy's tensordot(a, b, n): a's last n axes with b's first n.
template <class A, class B>
auto tensordot(Session& s, const A& a, const B& b, int n) {
  const TensorRead ra(a);
  impl::AxisList axes_a, axes_b;
  for (int i = 0; i < n; ++i) {
    axes_a.push_back(static_cast<int>(ra.rank()) - n + i);
    axes_b.push_back(i);
  }
  return tensordot(s, a, b, Span<const int>(axes_a.data(), axes_a.size()),
                   Span<const int>(axes_b.data(), axes_b.size()));
}

template <class O, class A, class B>
void tensordot_into(Session& s, O&& out, const A& a, const B& b, Span<const int> axes_a,
                    Span<const int> axes_b) {
  const auto ra = impl::as_read(a);
  const auto rb = impl::as_read(b);
  const EinsumSpec spec = impl::tensordot_spec("ops::tensordot_into", ra, rb, axes_a, axes_b);
  einsum_into(s, out, spec, ra, rb);
}
template <class O, class A, class B>
void tensordot_into(Session& s, O&& out, const A& a, const B& b, std::initializer_list<int> axes_a,
                    std::initializer_list<int> axes_b) {
  tensordot_into(s, out, a, b, Span<const int>(axes_a.begin(), axes_a.size()),
                 Span<const int>(axes_b.begin(), axes_b.size()));
}

}  // namespace tfbench::ops
