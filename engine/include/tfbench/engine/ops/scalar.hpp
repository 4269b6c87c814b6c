#pragma once
// Scalar: a coefficient of an operation (scale, axpby) in erased form, converted once to the operand
// element type when the operation dispatches on its dtype.

#include <Kokkos_Complex.hpp>

#include <complex>

namespace tfbench::ops {

struct Scalar {
  double re = 0;
  double im = 0;

  Scalar() = default;
  Scalar(double value) : re(value) {}  // NOLINT(google-explicit-constructor)
  Scalar(float value) : re(value) {}   // NOLINT(google-explicit-constructor)
  Scalar(int value) : re(value) {}     // NOLINT(google-explicit-constructor)
  Scalar(std::complex<double> value) : re(value.real()), im(value.imag()) {}     // NOLINT
  Scalar(Kokkos::complex<double> value) : re(value.real()), im(value.imag()) {}  // NOLINT

  bool is_real() const { return im == 0; }

  /// The value as element type T (the imaginary part must be zero for real T; checked by callers).
  template <class T>
  T as() const {
    if constexpr (std::is_same<T, Kokkos::complex<double>>::value) {
      return T(re, im);
    } else {
      return static_cast<T>(re);
    }
  }
};

}  // namespace tfbench::ops
