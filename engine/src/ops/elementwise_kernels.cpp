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

template <class Space, class T>
void binary_on(const Space& space, BinaryKind kind, T alpha, T beta, const LoopPlan<3>& plan,
               StridedOut<T> out, StridedIn<T> a, StridedIn<T> b) {
  switch (kind) {
    case BinaryKind::Add:
      return launch_binary_map(space, kBinaryLabel, plan, out.data, a.data, b.data, fn::Add<T>{});
    case BinaryKind::Sub:
      return launch_binary_map(space, kBinaryLabel, plan, out.data, a.data, b.data, fn::Sub<T>{});
    case BinaryKind::Mul:
      return launch_binary_map(space, kBinaryLabel, plan, out.data, a.data, b.data, fn::Mul<T>{});
    case BinaryKind::Axpby:
      return launch_binary_map(space, kBinaryLabel, plan, out.data, a.data, b.data,
                               fn::Axpby<T>{alpha, beta});
  }
}

template <class Space, class T>
void unary_on(const Space& space, UnaryKind kind, T alpha, const LoopPlan<2>& plan, StridedOut<T> out,
              StridedIn<T> a) {
  if constexpr (std::is_integral<T>::value) {
    // Integer and bool element types are copied only (the facades reject arithmetic on them).
    launch_unary_map(space, kUnaryLabel, plan, out.data, a.data, fn::Copy<T>{});
  } else {
    switch (kind) {
      case UnaryKind::Copy:
        return launch_unary_map(space, kUnaryLabel, plan, out.data, a.data, fn::Copy<T>{});
      case UnaryKind::Scale:
        return launch_unary_map(space, kUnaryLabel, plan, out.data, a.data, fn::Scale<T>{alpha});
      case UnaryKind::Neg:
        return launch_unary_map(space, kUnaryLabel, plan, out.data, a.data, fn::Neg<T>{});
      case UnaryKind::Conj:
        return launch_unary_map(space, kUnaryLabel, plan, out.data, a.data, fn::Conj<T>{});
    }
  }
}

template <class Space, class T, CompareKind K>
void compare_as(const Space& space, const LoopPlan<3>& plan, StridedOut<bool> out, StridedIn<T> a,
                StridedIn<T> b) {
  launch_binary_map(space, kCompareLabel, plan, out.data, a.data, b.data, fn::Compare<T, K>{});
}

}  // namespace

template <class T>
void run_binary(const ExecTarget& target, BinaryKind kind, T alpha, T beta, const index_t* shape, int rank,
                StridedOut<T> out, StridedIn<T> a, StridedIn<T> b) {
  const index_t* strides[3] = {out.strides, a.strides, b.strides};
  const auto plan = plan_loops<3>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total),
                      [&](auto space) { binary_on(space, kind, alpha, beta, plan, out, a, b); });
}

template <class T>
void run_unary(const ExecTarget& target, UnaryKind kind, T alpha, const index_t* shape, int rank,
               StridedOut<T> out, StridedIn<T> a) {
  const index_t* strides[2] = {out.strides, a.strides};
  const auto plan = plan_loops<2>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total),
                      [&](auto space) { unary_on(space, kind, alpha, plan, out, a); });
}

template <class T>
void run_abs(const ExecTarget& target, const index_t* shape, int rank, StridedOut<real_t<T>> out,
             StridedIn<T> a) {
  const index_t* strides[2] = {out.strides, a.strides};
  const auto plan = plan_loops<2>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total), [&](auto space) {
    launch_unary_map(space, kAbsLabel, plan, out.data, a.data, fn::Abs<T>{});
  });
}

template <class T>
void run_compare(const ExecTarget& target, CompareKind kind, const index_t* shape, int rank,
                 StridedOut<bool> out, StridedIn<T> a, StridedIn<T> b) {
  const index_t* strides[3] = {out.strides, a.strides, b.strides};
  const auto plan = plan_loops<3>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total), [&](auto space) {
    switch (kind) {
      case CompareKind::Eq:
        return compare_as<decltype(space), T, CompareKind::Eq>(space, plan, out, a, b);
      case CompareKind::Ne:
        return compare_as<decltype(space), T, CompareKind::Ne>(space, plan, out, a, b);
      case CompareKind::Lt:
        return compare_as<decltype(space), T, CompareKind::Lt>(space, plan, out, a, b);
      case CompareKind::Le:
        return compare_as<decltype(space), T, CompareKind::Le>(space, plan, out, a, b);
      case CompareKind::Gt:
        return compare_as<decltype(space), T, CompareKind::Gt>(space, plan, out, a, b);
      case CompareKind::Ge:
        return compare_as<decltype(space), T, CompareKind::Ge>(space, plan, out, a, b);
    }
  });
}

template <class T>
void run_fill(const ExecTarget& target, T value, const index_t* shape, int rank, StridedOut<T> out) {
  const index_t* strides[1] = {out.strides};
  const auto plan = plan_loops<1>(shape, rank, strides);
  if (plan.total == 0) return;
  dispatch_exec_space(kernel_space(target, plan.total),
                      [&](auto space) { launch_fill(space, kFillLabel, plan, out.data, value); });
}

#define TFBENCH_OPS_ELEMENTWISE_INSTANTIATE(T)                                                           \
  template void run_binary<T>(const ExecTarget&, BinaryKind, T, T, const index_t*, int, StridedOut<T>,   \
                              StridedIn<T>, StridedIn<T>);                                               \
  template void run_unary<T>(const ExecTarget&, UnaryKind, T, const index_t*, int, StridedOut<T>,        \
                             StridedIn<T>);                                                              \
  template void run_abs<T>(const ExecTarget&, const index_t*, int, StridedOut<real_t<T>>, StridedIn<T>); \
  template void run_compare<T>(const ExecTarget&, CompareKind, const index_t*, int, StridedOut<bool>,    \
                               StridedIn<T>, StridedIn<T>);                                              \
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
