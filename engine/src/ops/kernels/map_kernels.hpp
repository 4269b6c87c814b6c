#pragma once
// Elementwise map kernels over a LoopPlan: out = f(a) and out = f(a, b) for any operand strides.
// One Kokkos parallel_for per outer index of the plan (one in all but rank > kKernelRank cases),
// with a unit-stride functor when every operand is contiguous so the compiler can vectorize.

#include <Kokkos_Core.hpp>

#include "loop_nest.hpp"

namespace tfbench::impl {

template <class Tout, class Ta, class F>
struct UnaryMapStrided {
  KernelNest<2> nest;
  Tout* out;
  const Ta* a;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    index_t off[2];
    nest.offsets(i, off);
    out[off[0]] = f(a[off[1]]);
  }
};

template <class Tout, class Ta, class F>
struct UnaryMapContiguous {
  Tout* out;
  const Ta* a;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { out[i] = f(a[i]); }
};

template <class Tout, class Ta, class Tb, class F>
struct BinaryMapStrided {
  KernelNest<3> nest;
  Tout* out;
  const Ta* a;
  const Tb* b;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    index_t off[3];
    nest.offsets(i, off);
    out[off[0]] = f(a[off[1]], b[off[2]]);
  }
};

template <class Tout, class Ta, class Tb, class F>
struct BinaryMapContiguous {
  Tout* out;
  const Ta* a;
  const Tb* b;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { out[i] = f(a[i], b[i]); }
};

template <class T>
struct FillStrided {
  KernelNest<1> nest;
  T* out;
  T value;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    index_t off[1];
    nest.offsets(i, off);
    out[off[0]] = value;
  }
};

template <class Space, class T>
void launch_fill(const Space& space, const char* label, const LoopPlan<1>& plan, T* out, T value) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  plan.for_each_outer([&](const index_t(&base)[1]) {
    Kokkos::parallel_for(label, Policy(space, 0, plan.inner_total),
                         FillStrided<T>{plan.inner, out + base[0], value});
  });
}

template <class Space, class Tout, class Ta, class F>
void launch_unary_map(const Space& space, const char* label, const LoopPlan<2>& plan, Tout* out, const Ta* a,
                      F f) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  if (plan.contiguous()) {
    Kokkos::parallel_for(label, Policy(space, 0, plan.total), UnaryMapContiguous<Tout, Ta, F>{out, a, f});
    return;
  }
  plan.for_each_outer([&](const index_t(&base)[2]) {
    Kokkos::parallel_for(label, Policy(space, 0, plan.inner_total),
                         UnaryMapStrided<Tout, Ta, F>{plan.inner, out + base[0], a + base[1], f});
  });
}

template <class Space, class Tout, class Ta, class Tb, class F>
void launch_binary_map(const Space& space, const char* label, const LoopPlan<3>& plan, Tout* out, const Ta* a,
                       const Tb* b, F f) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  if (plan.contiguous()) {
    Kokkos::parallel_for(label, Policy(space, 0, plan.total),
                         BinaryMapContiguous<Tout, Ta, Tb, F>{out, a, b, f});
    return;
  }
  plan.for_each_outer([&](const index_t(&base)[3]) {
    Kokkos::parallel_for(
        label, Policy(space, 0, plan.inner_total),
        BinaryMapStrided<Tout, Ta, Tb, F>{plan.inner, out + base[0], a + base[1], b + base[2], f});
  });
}

}  // namespace tfbench::impl
