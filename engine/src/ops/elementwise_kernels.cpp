// Typed elementwise kernels (add, sub, multiply, axpby, copy, scale, neg, conj, abs, compare, fill)
// on the space chosen for the operation's size and budget.

#include "kernels/map_kernels.hpp"
#include "kernels/scalar_functors.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl {
namespace {

// Kernel labels, built once: a std::string per launch would allocate.
const std::string kBinaryLabel = "tfbench::engine::ops::elementwise_binary";
const std::string kUnaryLabel = "tfbench::engine::ops::elementwise_unary";
const std::string kCompareLabel = "tfbench::engine::ops::compare";
const std::string kFillLabel = "tfbench::engine::ops::fill";
const std::string kAbsLabel = "tfbench::engine::ops::abs";

/// Calls launch(f) with the functor of a binary kind.
template <class T, class Launch>
void with_binary_functor(BinaryKind kind, T alpha, T beta, Launch&& launch) {
  switch (kind) {
    case BinaryKind::Add:
      return launch(fn::Add<T>{});
    case BinaryKind::Sub:
      return launch(fn::Sub<T>{});
    case BinaryKind::Mul:
      return launch(fn::Mul<T>{});
    case BinaryKind::Axpby:
      return launch(fn::Axpby<T>{alpha, beta});
  }
}

/// Calls launch(f) with the functor of a unary kind (integer and bool element types are copied
/// only: the facades reject arithmetic on them).
template <class T, class Launch>
void with_unary_functor(UnaryKind kind, T alpha, Launch&& launch) {
  if constexpr (std::is_integral<T>::value) {
    launch(fn::Copy<T>{});
  } else {
    switch (kind) {
      case UnaryKind::Copy:
        return launch(fn::Copy<T>{});
      case UnaryKind::Scale:
        return launch(fn::Scale<T>{alpha});
      case UnaryKind::Neg:
        return launch(fn::Neg<T>{});
      case UnaryKind::Conj:
        return launch(fn::Conj<T>{});
    }
  }
}

/// Calls launch(f) with the comparison functor of a kind.
template <class T, class Launch>
void with_compare_functor(CompareKind kind, Launch&& launch) {
  switch (kind) {
    case CompareKind::Eq:
      return launch(fn::Compare<T, CompareKind::Eq>{});
    case CompareKind::Ne:
      return launch(fn::Compare<T, CompareKind::Ne>{});
    case CompareKind::Lt:
      return launch(fn::Compare<T, CompareKind::Lt>{});
    case CompareKind::Le:
      return launch(fn::Compare<T, CompareKind::Le>{});
    case CompareKind::Gt:
      return launch(fn::Compare<T, CompareKind::Gt>{});
    case CompareKind::Ge:
      return launch(fn::Compare<T, CompareKind::Ge>{});
  }
}

/// The element count when every operand walks one axis with unit stride (the erased layer's flat
/// loop of compact operands), else -1.
template <int NOps>
index_t flat_extent(const index_t* shape, int rank, const index_t* const (&strides)[NOps]) {
  if (rank != 1) return -1;
  for (const index_t* s : strides)
    if (s[0] != 1) return -1;
  return shape[0];
}

/// Calls launch(space, loop) on the space for the operation's size, where loop is the element count
/// of a flat operation (launched without planning a loop nest: what a small operation would
/// otherwise spend most of its boundary time on) or the LoopPlan of any other; nothing for an empty
/// shape. The launch_*_map overloads take either.
template <int NOps, class Launch>
void with_loop(const ExecTarget& target, const index_t* shape, int rank,
               const index_t* const (&strides)[NOps], Launch&& launch) {
  if (const index_t n = flat_extent<NOps>(shape, rank, strides); n >= 0) {
    if (n > 0) dispatch_exec_space(kernel_space(target, n), [&](auto space) { launch(space, n); });
    return;
  }
  const auto plan = plan_loops<NOps>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total), [&](auto space) { launch(space, plan); });
}

}  // namespace

template <class T>
void run_binary(const ExecTarget& target, BinaryKind kind, T alpha, T beta, const index_t* shape, int rank,
                StridedOut<T> out, StridedIn<T> a, StridedIn<T> b) {
  const index_t* strides[3] = {out.strides, a.strides, b.strides};
  with_loop<3>(target, shape, rank, strides, [&](auto space, const auto& loop) {
    with_binary_functor(kind, alpha, beta, [&](auto f) {
      launch_binary_map(space, kBinaryLabel, loop, out.data, a.data, b.data, f);
    });
  });
}

template <class T>
void run_unary(const ExecTarget& target, UnaryKind kind, T alpha, const index_t* shape, int rank,
               StridedOut<T> out, StridedIn<T> a) {
  const index_t* strides[2] = {out.strides, a.strides};
  with_loop<2>(target, shape, rank, strides, [&](auto space, const auto& loop) {
    with_unary_functor(kind, alpha,
                       [&](auto f) { launch_unary_map(space, kUnaryLabel, loop, out.data, a.data, f); });
  });
}

/// Calls launch(instance) on kernel_space(target, n). The flat paths below are what a chain of small
/// owner operations pays per call (ops/impl/owner_fast_path.hpp): Serial, the space of every small or
/// one-thread call, is tested before the general switch so that its launch inlines into the caller.
/// Through dispatch_exec_space's out-of-line switch alone, the 1024-element axpby of
/// session_overhead op=chain took 86-88 ns a call against 81 (raw Kokkos kernels: 70; perf: the
/// kernel's own samples fell from 60 to 54 ns and the dispatch's 4 ns went).
template <class Launch>
void on_kernel_space(const ExecTarget& target, index_t n, const Launch& launch) {
  const ExecSpaceKind space = kernel_space(target, n);
#if defined(KOKKOS_ENABLE_SERIAL)
  if (space == ExecSpaceKind::Serial) return launch(default_instance<Kokkos::Serial>());
#endif
  dispatch_exec_space(space, launch);
}

template <class T>
void run_flat_binary(const ExecTarget& target, BinaryKind kind, T alpha, T beta, index_t n, T* out,
                     const T* a, const T* b) {
  if (n <= 0) return;
  on_kernel_space(target, n, [&](auto space) {
    with_binary_functor(kind, alpha, beta,
                        [&](auto f) { launch_binary_map(space, kBinaryLabel, n, out, a, b, f); });
  });
}

template <class T>
void run_flat_unary(const ExecTarget& target, UnaryKind kind, T alpha, index_t n, T* out, const T* a) {
  if (n <= 0) return;
  on_kernel_space(target, n, [&](auto space) {
    with_unary_functor(kind, alpha, [&](auto f) { launch_unary_map(space, kUnaryLabel, n, out, a, f); });
  });
}

template <class T>
void run_abs(const ExecTarget& target, const index_t* shape, int rank, StridedOut<real_t<T>> out,
             StridedIn<T> a) {
  const index_t* strides[2] = {out.strides, a.strides};
  with_loop<2>(target, shape, rank, strides, [&](auto space, const auto& loop) {
    launch_unary_map(space, kAbsLabel, loop, out.data, a.data, fn::Abs<T>{});
  });
}

template <class T>
void run_compare(const ExecTarget& target, CompareKind kind, const index_t* shape, int rank,
                 StridedOut<bool> out, StridedIn<T> a, StridedIn<T> b) {
  const index_t* strides[3] = {out.strides, a.strides, b.strides};
  with_loop<3>(target, shape, rank, strides, [&](auto space, const auto& loop) {
    with_compare_functor<T>(
        kind, [&](auto f) { launch_binary_map(space, kCompareLabel, loop, out.data, a.data, b.data, f); });
  });
}

template <class T>
void run_fill(const ExecTarget& target, T value, const index_t* shape, int rank, StridedOut<T> out) {
  const index_t* strides[1] = {out.strides};
  with_loop<1>(target, shape, rank, strides,
               [&](auto space, const auto& loop) { launch_fill(space, kFillLabel, loop, out.data, value); });
}

#define TFBENCH_OPS_ELEMENTWISE_INSTANTIATE(T)                                                            \
  template void run_binary<T>(const ExecTarget&, BinaryKind, T, T, const index_t*, int, StridedOut<T>,    \
                              StridedIn<T>, StridedIn<T>);                                                \
  template void run_unary<T>(const ExecTarget&, UnaryKind, T, const index_t*, int, StridedOut<T>,         \
                             StridedIn<T>);                                                               \
  template void run_flat_binary<T>(const ExecTarget&, BinaryKind, T, T, index_t, T*, const T*, const T*); \
  template void run_flat_unary<T>(const ExecTarget&, UnaryKind, T, index_t, T*, const T*);                \
  template void run_abs<T>(const ExecTarget&, const index_t*, int, StridedOut<real_t<T>>, StridedIn<T>);  \
  template void run_compare<T>(const ExecTarget&, CompareKind, const index_t*, int, StridedOut<bool>,     \
                               StridedIn<T>, StridedIn<T>);                                               \
  template void run_fill<T>(const ExecTarget&, T, const index_t*, int, StridedOut<T>);

TFBENCH_OPS_ELEMENTWISE_INSTANTIATE(float)
TFBENCH_OPS_ELEMENTWISE_INSTANTIATE(double)
TFBENCH_OPS_ELEMENTWISE_INSTANTIATE(Kokkos::complex<double>)

// Copies of every dtype go through an integer type of the element's size (bits, not values).
template void run_unary<bool>(const ExecTarget&, UnaryKind, bool, const index_t*, int, StridedOut<bool>,
                              StridedIn<bool>);
template void run_unary<std::int32_t>(const ExecTarget&, UnaryKind, std::int32_t, const index_t*, int,
                                      StridedOut<std::int32_t>, StridedIn<std::int32_t>);
template void run_unary<std::int64_t>(const ExecTarget&, UnaryKind, std::int64_t, const index_t*, int,
                                      StridedOut<std::int64_t>, StridedIn<std::int64_t>);
template void run_fill<bool>(const ExecTarget&, bool, const index_t*, int, StridedOut<bool>);

}  // namespace tfbench::impl
