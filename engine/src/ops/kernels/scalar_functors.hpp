#pragma once
// Device functors of the elementwise operations (one small type each, so every kernel is
// specialized at compile time rather than switching per element).

#include <Kokkos_Complex.hpp>

#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl::fn {

template <class T>
struct Add {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct Sub {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const { return a - b; }
};
template <class T>
struct Mul {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const { return a * b; }
};
template <class T>
struct Axpby {
  T alpha, beta;
  KOKKOS_INLINE_FUNCTION T operator()(const T& a, const T& b) const { return alpha * a + beta * b; }
};
template <class T>
struct Copy {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a) const { return a; }
};
template <class T>
struct Scale {
  T alpha;
  KOKKOS_INLINE_FUNCTION T operator()(const T& a) const { return alpha * a; }
};
template <class T>
struct Neg {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a) const { return -a; }
};
template <class T>
struct Conj {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a) const { return a; }
};
template <class R>
struct Conj<Kokkos::complex<R>> {
  KOKKOS_INLINE_FUNCTION Kokkos::complex<R> operator()(const Kokkos::complex<R>& a) const {
    return Kokkos::conj(a);
  }
};
template <class T>
struct Abs {
  KOKKOS_INLINE_FUNCTION T operator()(const T& a) const { return a < T(0) ? -a : a; }
};
template <class R>
struct Abs<Kokkos::complex<R>> {
  KOKKOS_INLINE_FUNCTION R operator()(const Kokkos::complex<R>& a) const { return Kokkos::abs(a); }
};

template <class T, CompareKind K>
struct Compare {
  KOKKOS_INLINE_FUNCTION bool operator()(const T& a, const T& b) const {
    if constexpr (K == CompareKind::Eq) return a == b;
    if constexpr (K == CompareKind::Ne) return a != b;
    if constexpr (!is_complex<T>::value) {
      if constexpr (K == CompareKind::Lt) return a < b;
      if constexpr (K == CompareKind::Le) return a <= b;
      if constexpr (K == CompareKind::Gt) return a > b;
      if constexpr (K == CompareKind::Ge) return a >= b;
    }
    return false;
  }
};

}  // namespace tfbench::impl::fn
