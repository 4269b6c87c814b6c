#pragma once
// Large GEMM: C = alpha A B + beta C for rank-2 tensors. The route comes from the session's Gemm
// provider slot under the effective batch policy: KokkosBlas::gemm on LayoutLeft views when the slot
// holds the BLAS (OpenBLAS on host, the space's kernels or cuBLAS on device) and the policy and
// context allow it, else tfbench's sequential kernel (provider specialized, e.g. inside an outer
// fan-out lane or under Sequential); a forced strategy with no route is NoRoute. Column-major
// operands with any leading dimension and row-major operands (passed transposed) are used in place;
// only an operand with neither unit stride is packed.

#include <complex>
#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/impl/facade.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/storage/erased.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench::ops {

/// A [m, k], B [k, n], C [m, n]; with beta == 0 the old C is never read; errors leave C untouched.
inline Result<BatchRun, BatchedError> gemm_into(Session& session, const TensorRead& a, const TensorRead& b,
                                                const TensorWrite& c, std::complex<double> alpha = 1.0,
                                                std::complex<double> beta = 0.0) {
  return impl::batched::gemm_run(session, a, b, &c, nullptr, alpha, beta);
}

/// Allocates C [m, n] = alpha A B in the session's memory (A's representation).
template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> gemm(Session& session, const TensorView<T, R, Rep>& a,
                                                 const TensorView<T, R, Rep>& b,
                                                 std::complex<double> alpha = 1.0) {
  impl::batched::RawOutput raw;
  auto run = impl::batched::gemm_run(session, a, b, nullptr, &raw, alpha, 0.0);
  if (!run) return unexpected(std::move(run.error()));
  const Shape shape{a.shape()[0], b.shape()[1]};
  return BatchedOutput<T, Rep>{raw.adopt<T, Rep>(shape), *run};
}

template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> gemm(Session& session, const Tensor<T, R, Rep>& a,
                                                 const Tensor<T, R, Rep>& b,
                                                 std::complex<double> alpha = 1.0) {
  const auto av = a.view();
  const auto bv = b.view();
  return gemm(session, av, bv, alpha);
}

}  // namespace tfbench::ops
