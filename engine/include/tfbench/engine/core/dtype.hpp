#pragma once
// DType: the runtime identity of the element types the engine computes with. Erased operation inputs
// (TensorRead/TensorWrite) carry one, and operations dispatch on it once per call. Host
// storage does not need a dtype: tensors of other element types exist, they just cannot be erased.

#include <Kokkos_Complex.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace tfbench {

enum class DType { Bool, I32, I64, F32, F64, C64, C128 };

/// "bool", "i32", "i64", "f32", "f64", "c64", "c128".
const char* name(DType dtype);
/// Parses a name as printed by name(); empty when unknown.
std::optional<DType> parse_dtype(std::string_view text);
/// Bytes per element. Inline: every operation asks several times (offsets, overlap checks).
constexpr std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return sizeof(bool);
    case DType::I32:
    case DType::F32:
      return 4;
    case DType::I64:
    case DType::F64:
    case DType::C64:
      return 8;
    case DType::C128:
      return 16;
  }
  return 0;
}
constexpr bool is_complex(DType dtype) {
  return dtype == DType::C64 || dtype == DType::C128;
}
bool is_floating(DType dtype);  // f32, f64, c64, c128
/// The real dtype of a complex dtype (c64 -> f32, c128 -> f64); other dtypes map to themselves.
DType real_dtype(DType dtype);

template <class T>
struct dtype_traits {
  static constexpr bool supported = false;
};
#define TFBENCH_DTYPE_TRAITS(TYPE, VALUE)        \
  template <>                                    \
  struct dtype_traits<TYPE> {                    \
    static constexpr bool supported = true;      \
    static constexpr DType value = DType::VALUE; \
  };
TFBENCH_DTYPE_TRAITS(bool, Bool)
TFBENCH_DTYPE_TRAITS(std::int32_t, I32)
TFBENCH_DTYPE_TRAITS(std::int64_t, I64)
TFBENCH_DTYPE_TRAITS(float, F32)
TFBENCH_DTYPE_TRAITS(double, F64)
TFBENCH_DTYPE_TRAITS(std::complex<float>, C64)
TFBENCH_DTYPE_TRAITS(std::complex<double>, C128)
TFBENCH_DTYPE_TRAITS(Kokkos::complex<float>, C64)
TFBENCH_DTYPE_TRAITS(Kokkos::complex<double>, C128)
#undef TFBENCH_DTYPE_TRAITS

/// True for element types with a DType (the engine's numerical element types).
template <class T>
struct has_dtype : std::integral_constant<bool, dtype_traits<std::remove_cv_t<T>>::supported> {};

template <class T>
constexpr DType dtype_of() {
  static_assert(has_dtype<T>::value,
                "tfbench::dtype_of: this element type has no DType (host storage only, not erasable)");
  return dtype_traits<std::remove_cv_t<T>>::value;
}

/// std::complex<R> and Kokkos::complex<R>: the types a real view reinterprets as pairs of R.
template <class T>
struct complex_traits {
  static constexpr bool is_complex = false;
};
template <class R>
struct complex_traits<std::complex<R>> {
  static constexpr bool is_complex = true;
  using real_type = R;
};
template <class R>
struct complex_traits<Kokkos::complex<R>> {
  static constexpr bool is_complex = true;
  using real_type = R;
};

/// Element types Device storage and numerical construction (zeros) accept: arithmetic or complex.
template <class T>
struct is_numeric_element
    : std::integral_constant<bool, std::is_arithmetic<T>::value || complex_traits<T>::is_complex> {};

}  // namespace tfbench
