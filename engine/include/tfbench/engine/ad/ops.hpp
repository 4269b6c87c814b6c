#pragma once
// Recorded operations of eager AD: each computes its value with the ordinary engine operation
// (tfbench::ops, same kernels, same session) and, when grad_enabled() and an input is tracked,
// records one node whose vector-Jacobian product is itself a few engine operations:
//
//   add / sub / axpby / scale / negate   linear: the gradient scaled per input
//   multiply (elementwise)               g * b, g * a  (a, b saved)
//   sum over axes                        g broadcast back over the summed axes
//   permute                              g permuted back
//   einsum (binary, unary; N-ary along   g contracted with the other operand into this operand's
//   its greedy pairwise path)            labels; diagonals and labels summed only here broadcast
//   tensordot                            its einsum
//   solve (A x = b, dense LU)            gb = A^-T g (reusing the saved LU), gA = -gb x^T
//
// Element types: float and double. Operands are Vars; untracked inputs get no gradient.

#include <initializer_list>
#include <string_view>
#include <vector>

#include "tfbench/engine/ad/var.hpp"
#include "tfbench/engine/ops/error.hpp"
#include "tfbench/engine/ops/scalar.hpp"

namespace tfbench::ad {

template <class T>
Var<T> add(Session& s, const Var<T>& a, const Var<T>& b);
template <class T>
Var<T> sub(Session& s, const Var<T>& a, const Var<T>& b);
template <class T>
Var<T> multiply(Session& s, const Var<T>& a, const Var<T>& b);
template <class T>
Var<T> axpby(Session& s, T alpha, const Var<T>& a, T beta, const Var<T>& b);
template <class T>
Var<T> scale(Session& s, T alpha, const Var<T>& a);
template <class T>
Var<T> negate(Session& s, const Var<T>& a);

template <class T>
Var<T> sum(Session& s, const Var<T>& a, Span<const int> axes);
template <class T>
Var<T> sum(Session& s, const Var<T>& a, std::initializer_list<int> axes) {
  return sum(s, a, Span<const int>(axes.begin(), axes.size()));
}
template <class T>
Var<T> sum_all(Session& s, const Var<T>& a);

template <class T>
Var<T> permute(Session& s, const Var<T>& a, Span<const int> perm);
template <class T>
Var<T> permute(Session& s, const Var<T>& a, std::initializer_list<int> perm) {
  return permute(s, a, Span<const int>(perm.begin(), perm.size()));
}

template <class T>
Var<T> einsum(Session& s, std::string_view spec, Span<const Var<T>> operands);
template <class T, class... More>
Var<T> einsum(Session& s, std::string_view spec, const Var<T>& a, const More&... more) {
  const Var<T> operands[] = {a, more...};
  return einsum(s, spec, Span<const Var<T>>(operands, 1 + sizeof...(More)));
}

template <class T>
Var<T> tensordot(Session& s, const Var<T>& a, const Var<T>& b, Span<const int> axes_a,
                 Span<const int> axes_b);
template <class T>
Var<T> tensordot(Session& s, const Var<T>& a, const Var<T>& b, std::initializer_list<int> axes_a,
                 std::initializer_list<int> axes_b) {
  return tensordot(s, a, b, Span<const int>(axes_a.begin(), axes_a.size()),
                   Span<const int>(axes_b.begin(), axes_b.size()));
}

/// x with A x = b: A is [n, n], b is [n] or [n, k]. Dense LU with partial pivoting (LAPACK getrf /
/// getrs) on host-accessible memory; OpError(Singular) for an exactly singular A.
template <class T>
Var<T> solve(Session& s, const Var<T>& a, const Var<T>& b);

}  // namespace tfbench::ad
