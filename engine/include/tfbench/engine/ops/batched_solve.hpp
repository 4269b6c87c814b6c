#pragma once
// Batched LU + solve: X_i = A_i^{-1} B_i for rank-3 tensors A [n, n, batch], B and X [n, nrhs, batch]
// (any strides). Every route pivots (LAPACK's partial pivoting) unless the caller declares
// Pivoting::None, the only case in which KokkosBatched's non-pivoting SerialLU may be chosen. A
// singular item is the typed error Singular naming the lowest singular item and their count.
//
//   auto run = tfbench::ops::batched_solve_into(session, a, b, x);       // X may be B (in place)
//   auto out = tfbench::ops::batched_solve(session, a_view, b_view);

#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/impl/facade.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/storage/erased.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench::ops {

/// Solves into `x`. `x` may be exactly `b` (an in-place solve) but must not otherwise overlap `a` or
/// `b`. Validation and route errors leave `x` untouched; Singular leaves every other item solved.
inline Result<BatchRun, BatchedError> batched_solve_into(Session& session, const TensorRead& a,
                                                         const TensorRead& b, const TensorWrite& x,
                                                         const BatchedOptions& options = {}) {
  return impl::batched::batched_solve_run(session, a, b, &x, nullptr, options);
}

/// Allocates X [n, nrhs, batch] in the session's memory (A's representation).
template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> batched_solve(Session& session, const TensorView<T, R, Rep>& a,
                                                          const TensorView<T, R, Rep>& b,
                                                          const BatchedOptions& options = {}) {
  impl::batched::RawOutput raw;
  auto run = impl::batched::batched_solve_run(session, a, b, nullptr, &raw, options);
  if (!run) return unexpected(std::move(run.error()));
  const Shape shape{b.shape()[0], b.shape()[1], b.shape()[2]};
  return BatchedOutput<T, Rep>{raw.adopt<T, Rep>(shape), *run};
}

template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> batched_solve(Session& session, const Tensor<T, R, Rep>& a,
                                                          const Tensor<T, R, Rep>& b,
                                                          const BatchedOptions& options = {}) {
  const auto av = a.view();
  const auto bv = b.view();
  return batched_solve(session, av, bv, options);
}

}  // namespace tfbench::ops
