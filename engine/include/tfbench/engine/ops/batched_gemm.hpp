#pragma once
// Batched GEMM: C_i = alpha A_i B_i + beta C_i for every item i of rank-3 tensors A [m, k, batch],
// B [k, n, batch], C [m, n, batch] (any strides: packed items, padded leading dimensions, interleaved
// batches, row-major items). The route (strategy, lanes, item provider) is resolved by the exec
// concern's batch policy before anything is written; docs/ops-batched.md has the decision table.
//
//   auto run = tfbench::ops::batched_gemm_into(session, a, b, c, 1.0, 0.0);   // Result<BatchRun, ...>
//   auto out = tfbench::ops::batched_gemm(session, a_view, b_view);          // owner + route

#include <complex>
#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/impl/facade.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/engine/storage/erased.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench::ops {

/// An allocated result and the route that computed it.
template <class T, class Rep>
struct BatchedOutput {
  Tensor<T, DynRank, Rep> tensor;
  BatchRun run;
};

/// Writes C = alpha A B + beta C into `c` (with beta == 0 the old C is never read). dtype f64, f32 or
/// c128, the same for all three; alpha and beta must be real for real dtypes. On any validation or
/// route error `c` is untouched.
inline Result<BatchRun, BatchedError> batched_gemm_into(Session& session, const TensorRead& a,
                                                        const TensorRead& b, const TensorWrite& c,
                                                        std::complex<double> alpha = 1.0,
                                                        std::complex<double> beta = 0.0,
                                                        const BatchedOptions& options = {}) {
  return impl::batched::batched_gemm_run(session, a, b, &c, nullptr, alpha, beta, options);
}

/// Allocates C [m, n, batch] in the session's memory and returns alpha A B with the route that ran.
/// The result has A's representation (Host, Device or Dynamic).
template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> batched_gemm(Session& session, const TensorView<T, R, Rep>& a,
                                                         const TensorView<T, R, Rep>& b,
                                                         std::complex<double> alpha = 1.0,
                                                         const BatchedOptions& options = {}) {
  impl::batched::RawOutput raw;
  auto run = impl::batched::batched_gemm_run(session, a, b, nullptr, &raw, alpha, 0.0, options);
  if (!run) return unexpected(std::move(run.error()));
  const Shape shape{a.shape()[0], b.shape()[1], a.shape()[2]};
  return BatchedOutput<T, Rep>{raw.adopt<T, Rep>(shape), *run};
}

/// The same for owners.
template <class T, class R, class Rep>
Result<BatchedOutput<T, Rep>, BatchedError> batched_gemm(Session& session, const Tensor<T, R, Rep>& a,
                                                         const Tensor<T, R, Rep>& b,
                                                         std::complex<double> alpha = 1.0,
                                                         const BatchedOptions& options = {}) {
  const auto av = a.view();
  const auto bv = b.view();
  return batched_gemm(session, av, bv, alpha, options);
}

}  // namespace tfbench::ops
