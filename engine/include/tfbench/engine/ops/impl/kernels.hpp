#pragma once
// Typed kernel entry points of the operation families, one per element type, instantiated in
// engine/src/ops for float, double and Kokkos::complex<double> (bool where the operation yields
// it). Callers are the erased implementations, which dispatch the dtype once per operation and
// pass borrowed data pointers with materialized element strides (shape = the operation's shape).
// Every entry assumes validated input: shapes agree, the destination is injective.

#include <Kokkos_Complex.hpp>

#include <type_traits>

#include "tfbench/engine/ops/impl/exec_target.hpp"
#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<Kokkos::complex<R>> {
  using type = R;
};
template <class T>
using real_t = typename real_of<T>::type;

/// The accumulator of sums of T: float sums accumulate in double (long reductions and contractions
/// then round once), other types in themselves.
template <class T>
struct accumulator_of {
  using type = T;
};
template <>
struct accumulator_of<float> {
  using type = double;
};
template <class T>
using accumulator_t = typename accumulator_of<T>::type;

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<Kokkos::complex<R>> : std::true_type {};

/// A read operand: data at its first logical element and one stride per axis of the op shape.
template <class T>
struct StridedIn {
  const T* data;
  const index_t* strides;
};
/// The stride of a flat (rank 1, unit-stride) operand: such operations launch without a loop plan.
inline constexpr index_t kUnitStride = 1;

/// A written operand.
template <class T>
struct StridedOut {
  T* data;
  const index_t* strides;
};

enum class BinaryKind { Add, Sub, Mul, Axpby };     // Axpby: alpha * a + beta * b
enum class UnaryKind { Copy, Scale, Neg, Conj };    // Scale: alpha * a
enum class CompareKind { Eq, Ne, Lt, Le, Gt, Ge };  // Lt..Ge: real types only

template <class T>
void run_binary(const ExecTarget& target, BinaryKind kind, T alpha, T beta, const index_t* shape, int rank,
                StridedOut<T> out, StridedIn<T> a, StridedIn<T> b);

template <class T>
void run_unary(const ExecTarget& target, UnaryKind kind, T alpha, const index_t* shape, int rank,
               StridedOut<T> out, StridedIn<T> a);

/// The same over n compact elements of every operand (the owners' fast path): no stride or loop
/// planning between the call and the launch.
template <class T>
void run_flat_binary(const ExecTarget& target, BinaryKind kind, T alpha, T beta, index_t n, T* out,
                     const T* a, const T* b);
template <class T>
void run_flat_unary(const ExecTarget& target, UnaryKind kind, T alpha, index_t n, T* out, const T* a);

template <class T>
void run_abs(const ExecTarget& target, const index_t* shape, int rank, StridedOut<real_t<T>> out,
             StridedIn<T> a);

template <class T>
void run_compare(const ExecTarget& target, CompareKind kind, const index_t* shape, int rank,
                 StridedOut<bool> out, StridedIn<T> a, StridedIn<T> b);

/// out = value everywhere (the initialized-zero path; never reads out).
template <class T>
void run_fill(const ExecTarget& target, T value, const index_t* shape, int rank, StridedOut<T> out);

/// out[kept] = alpha * sum over the reduced axes of a. `reduced` flags the axes of a's shape
/// (rank `rank`) that are summed; out's strides follow a's kept axes in order.
template <class T>
void run_sum(const ExecTarget& target, T alpha, const index_t* shape, int rank, const bool* reduced,
             StridedOut<T> out, StridedIn<T> a);

/// out[o] = sum over the inner index of a[o, i] * b[o, i]: the direct strided contraction for tiny
/// items. `outer_*` are strides over the output's shape, `inner_*` over the summed shape.
template <class T>
void run_direct_contract(const ExecTarget& target, const index_t* outer_shape, int outer_rank,
                         StridedOut<T> out, StridedIn<T> a, StridedIn<T> b, const index_t* inner_shape,
                         int inner_rank, const index_t* inner_a, const index_t* inner_b);

}  // namespace tfbench::impl
