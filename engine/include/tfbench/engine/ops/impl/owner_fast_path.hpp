#pragma once
// The `_into` fast path of owners. An owner (Tensor) is compact and has a static element type, so
// when every operand of an elementwise `_into` is an owner of one element type with arithmetic
// kernels, validation reduces to shapes, reachable memory and whole-buffer aliasing, and the typed
// kernel runs as one flat loop without building the erased reads (everything else goes through the
// erased boundary, ops/impl/erased.hpp). This is what a chain of small operations pays per call
// (docs/ops-tensor.md, "The owners' fast path").

#include <complex>
#include <type_traits>

#include "tfbench/engine/ops/impl/erased.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::impl {

/// The kernel element type of T (void: no arithmetic kernels).
template <class T>
struct kernel_element {
  using type = void;
};
template <>
struct kernel_element<float> {
  using type = float;
};
template <>
struct kernel_element<double> {
  using type = double;
};
template <>
struct kernel_element<std::complex<double>> {
  using type = Kokkos::complex<double>;
};
template <>
struct kernel_element<Kokkos::complex<double>> {
  using type = Kokkos::complex<double>;
};

template <class X>
struct owner_element {
  using type = void;
};
template <class T, class R, class Rep>
struct owner_element<Tensor<T, R, Rep>> {
  using type = T;
};
template <class X>
using owner_element_t = typename owner_element<std::decay_t<X>>::type;

/// True when every operand is an owner of First's element type and that type has kernels.
template <class First, class... Rest>
inline constexpr bool kernel_owners =
    !std::is_void<owner_element_t<First>>::value &&
    !std::is_void<typename kernel_element<owner_element_t<First>>::type>::value &&
    (std::is_same<owner_element_t<First>, owner_element_t<Rest>>::value && ...);

template <class T, class R, class Rep>
const void* owner_data(const Tensor<T, R, Rep>& t) noexcept {
  return storage_data<T>(TensorAccess::storage(t));
}

/// The element count of the fast path: every input of out's shape, every operand in memory the
/// target's kernels reach, each input disjoint from out or the very same buffer (exact aliasing is
/// allowed: elementwise kernels read an element before writing it). -1 when any of that fails: the
/// general path then validates and reports.
template <class O, class... In>
index_t owner_extent(const ExecTarget& target, const O& out, const In&... ins) {
  using T = owner_element_t<O>;
  const Span<const Index> shape = out.shape();
  if (!reachable(target, out.space())) return -1;
  const index_t n = out.numel();
  const T* lo = static_cast<const T*>(owner_data(out));
  auto admitted = [&](const auto& in) {
    const Span<const Index> s = in.shape();
    if (s.size() != shape.size() || !reachable(target, in.space())) return false;
    for (std::size_t d = 0; d < s.size(); ++d)
      if (s[d] != shape[d]) return false;
    const T* p = static_cast<const T*>(owner_data(in));
    return p == lo || p >= lo + n || lo >= p + n;
  };
  return (admitted(ins) && ...) ? n : -1;
}

}  // namespace tfbench::impl
