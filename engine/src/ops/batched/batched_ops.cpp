// The batched operations behind the public facades: validate the erased operands, dispatch dtype and
// space once, select the route, then (and only then) acquire the output and execute.

#include <string>

#include "../../exec/effective_policy.hpp"
#include "facade_support.hpp"
#include "large_gemm.hpp"
#include "route_memo.hpp"
#include "tfbench/engine/ops/batched/impl/facade.hpp"

namespace tfbench::impl::batched {

namespace {

constexpr const char* kGemm = "ops::batched_gemm";
constexpr const char* kSolve = "ops::batched_solve";
constexpr const char* kLargeGemm = "ops::gemm";

std::string extents(const Operand& x, std::size_t rank) {
  return std::string(x.name) + " " + shape_text(x, rank);
}

/// The destination: the caller's (validated) write, or an output allocated after route selection.
template <class T, class Space>
T* acquire_output(const Operand* into, RawOutput* output, Index elements, const char* label) {
  if (into != nullptr) return static_cast<T*>(into->zero);
  output->allocate<typename Space::memory_space>(static_cast<std::size_t>(elements) * sizeof(T), label);
  return static_cast<T*>(output->data());
}

}  // namespace

Result<ops::BatchRun, ops::BatchedError> batched_gemm_run(Session& session, const TensorRead& a,
                                                          const TensorRead& b, const TensorWrite* into,
                                                          RawOutput* output, std::complex<double> alpha,
                                                          std::complex<double> beta,
                                                          const ops::BatchedOptions& options) {
  Operand oa_, ob_, oc;
  if (!load_operand(a, "A", 3, oa_)) return rank_error(kGemm, "A", a.rank(), 3);
  if (!load_operand(b, "B", 3, ob_)) return rank_error(kGemm, "B", b.rank(), 3);
  const Operand* oa = &oa_;
  const Operand* ob = &ob_;
  if (into != nullptr) {
    if (!load_operand(*into, "C", 3, oc)) return rank_error(kGemm, "C", into->rank(), 3);
  } else {
    oc = oa_;  // an allocated output: its own memory, the session's space, A's dtype
    oc.name = "C";
    oc.shape = {oa->shape[0], ob->shape[1], oa->shape[2]};
  }
  if (auto e = check_operands(session, kGemm, oa_, ob_, oc)) return unexpected(std::move(*e));
  if (oa->shape[1] != ob->shape[0] || oa->shape[2] != ob->shape[2] || oc.shape[0] != oa->shape[0] ||
      oc.shape[1] != ob->shape[1] || oc.shape[2] != oa->shape[2]) {
    return fail(BatchedErrc::ShapeMismatch, kGemm,
                "expected A [m, k, batch], B [k, n, batch], C [m, n, batch]; got " + extents(*oa, 3) + ", " +
                    extents(*ob, 3) + ", " + extents(oc, 3));
  }
  if (into != nullptr && (overlaps(oc, *oa) || overlaps(oc, *ob))) {
    return fail(BatchedErrc::InvalidLayout, kGemm,
                "C overlaps an input (A or B); write to a separate tensor");
  }
  const Index m = oc.shape[0], n = oc.shape[1], k = oa->shape[1], count = oc.shape[2];
  const BatchProblem problem{count, std::max({m, n, k}), double(m) * double(n) * double(k)};

  return session.dispatch([&](auto space) -> Result<ops::BatchRun, ops::BatchedError> {
    using Space = decltype(space);
    return with_dtype(oa->dtype, [&](auto tag) -> Result<ops::BatchRun, ops::BatchedError> {
      using T = decltype(tag);
      const std::complex<double> beta_used = into != nullptr ? beta : std::complex<double>(0.0);
      if (const char* unfit = unfit_scalar<T>(alpha, beta_used)) return imaginary_scalar(kGemm, unfit);
      // An allocated C is compact; its address is not known yet (nothing is allocated before the route).
      GemmBatch<T> g{as_batch<const T>(*oa), as_batch<const T>(*ob),
                     into != nullptr ? as_batch<T>(oc) : compact_batch<T>(nullptr, m, n, count),
                     scalar_as<T>(alpha), scalar_as<T>(beta_used)};
      RouteKey key(session, options, ops::BatchedFamily::Gemm, g.a, g.b, g.c);
      key.add_scalar(g.alpha);
      key.add_scalar(g.beta);
      SelectedRoute selected;
      if (auto e = remembered_route<Space, T, ops::BatchedFamily::Gemm>(key, selected, [&] {
            const auto applies = [&](ops::ItemProvider p) { return gemm_provider_applies<Space>(p, g); };
            return select_route(session, options, ops::BatchedFamily::Gemm, problem, is_host_space<Space>(),
                                oa->dtype, streaming_batch(g), operand_bytes(g), ApplicableFn(applies),
                                kGemm);
          }))
        return unexpected(std::move(*e));
      if (into == nullptr) {
        g.c.data = acquire_output<T, Space>(nullptr, output, m * n * count,
                                            "tfbench::engine::ops::batched_gemm::output");
      }
      const LanesRan ran = execute_gemm(space, selected.items_route(), g);
      // Only a route that asked for streaming stores can have streamed C.
      return selected.run(count, ran, selected.stream_c && streams_c_on(selected.provider, g),
                          specialized_two_widths(g), specialized_prefetches(g));
    });
  });
}

Result<ops::BatchRun, ops::BatchedError> batched_solve_run(Session& session, const TensorRead& a,
                                                           const TensorRead& b, const TensorWrite* into,
                                                           RawOutput* output,
                                                           const ops::BatchedOptions& options) {
  Operand oa_, ob_, ox;
  if (!load_operand(a, "A", 3, oa_)) return rank_error(kSolve, "A", a.rank(), 3);
  if (!load_operand(b, "B", 3, ob_)) return rank_error(kSolve, "B", b.rank(), 3);
  const Operand* oa = &oa_;
  const Operand* ob = &ob_;
  if (into != nullptr) {
    if (!load_operand(*into, "X", 3, ox)) return rank_error(kSolve, "X", into->rank(), 3);
  } else {
    ox = ob_;
    ox.name = "X";
  }
  if (auto e = check_operands(session, kSolve, oa_, ob_, ox)) return unexpected(std::move(*e));
  if (oa->shape[0] != oa->shape[1] || ob->shape[0] != oa->shape[0] || ob->shape[2] != oa->shape[2] ||
      ox.shape != ob->shape) {
    return fail(BatchedErrc::ShapeMismatch, kSolve,
                "expected A [n, n, batch], B [n, nrhs, batch], X [n, nrhs, batch]; got " + extents(*oa, 3) +
                    ", " + extents(*ob, 3) + ", " + extents(ox, 3));
  }
  if (into != nullptr && (overlaps(ox, *oa) || (overlaps(ox, *ob) && !same_layout(ox, *ob)))) {
    return fail(BatchedErrc::InvalidLayout, kSolve,
                "X overlaps A, or overlaps B without being exactly B (an in-place solve passes B as X)");
  }
  const Index n = oa->shape[0], nrhs = ob->shape[1], count = oa->shape[2];
  // LU 2/3 n^3 plus 2 n^2 nrhs for the triangular solves, in multiply-adds.
  const BatchProblem problem{count, std::max(n, nrhs), double(n) * n * n / 3.0 + double(n) * n * nrhs};

  return session.dispatch([&](auto space) -> Result<ops::BatchRun, ops::BatchedError> {
    using Space = decltype(space);
    return with_dtype(oa->dtype, [&](auto tag) -> Result<ops::BatchRun, ops::BatchedError> {
      using T = decltype(tag);
      SolveBatch<T> s{as_batch<const T>(*oa), as_batch<const T>(*ob),
                      into != nullptr ? as_batch<T>(ox) : compact_batch<T>(nullptr, n, nrhs, count)};
      const RouteKey key(session, options, ops::BatchedFamily::Solve, s.a, s.b, s.x);
      SelectedRoute selected;
      if (auto e = remembered_route<Space, T, ops::BatchedFamily::Solve>(key, selected, [&] {
            const auto applies = [&](ops::ItemProvider p) { return solve_provider_applies<Space>(p, s); };
            // A, B and X: the LU works in a copy of each A item, X is B's size.
            const double bytes = double(count) * (double(n) * n + 2.0 * double(n) * nrhs) * sizeof(T);
            return select_route(session, options, ops::BatchedFamily::Solve, problem, is_host_space<Space>(),
                                oa->dtype, false, bytes, ApplicableFn(applies), kSolve);
          }))
        return unexpected(std::move(*e));
      if (into == nullptr) {
        s.x.data = acquire_output<T, Space>(nullptr, output, n * nrhs * count,
                                            "tfbench::engine::ops::batched_solve::output");
      }
      const SolveRan ran = execute_solve(space, selected.items_route(), s);
      const SingularItems& singular = ran.singular;
      if (singular.count > 0) {
        BatchedError e{
            BatchedErrc::Singular,
            kSolve,
            "item " + std::to_string(singular.first) + " is singular" +
                (singular.count > 1 ? " (" + std::to_string(singular.count) + " singular items)" : "") +
                "; every other item is solved",
            std::nullopt,
            singular.first,
            singular.count};
        return unexpected(std::move(e));
      }
      return selected.run(count, ran.lanes);
    });
  });
}

Result<ops::BatchRun, ops::BatchedError> gemm_run(Session& session, const TensorRead& a, const TensorRead& b,
                                                  const TensorWrite* into, RawOutput* output,
                                                  std::complex<double> alpha, std::complex<double> beta) {
  Operand oa_, ob_, oc;
  if (!load_operand(a, "A", 2, oa_)) return rank_error(kLargeGemm, "A", a.rank(), 2);
  if (!load_operand(b, "B", 2, ob_)) return rank_error(kLargeGemm, "B", b.rank(), 2);
  const Operand* oa = &oa_;
  const Operand* ob = &ob_;
  if (into != nullptr) {
    if (!load_operand(*into, "C", 2, oc)) return rank_error(kLargeGemm, "C", into->rank(), 2);
  } else {
    oc = oa_;
    oc.name = "C";
    oc.shape = {oa->shape[0], ob->shape[1], 1};
  }
  if (auto e = check_operands(session, kLargeGemm, oa_, ob_, oc)) return unexpected(std::move(*e));
  if (oa->shape[1] != ob->shape[0] || oc.shape[0] != oa->shape[0] || oc.shape[1] != ob->shape[1]) {
    return fail(BatchedErrc::ShapeMismatch, kLargeGemm,
                "expected A [m, k], B [k, n], C [m, n]; got " + extents(*oa, 2) + ", " + extents(*ob, 2) +
                    ", " + extents(oc, 2));
  }
  if (into != nullptr && (overlaps(oc, *oa) || overlaps(oc, *ob))) {
    return fail(BatchedErrc::InvalidLayout, kLargeGemm,
                "C overlaps an input (A or B); write to a separate tensor");
  }
  const Index m = oc.shape[0], n = oc.shape[1], k = oa->shape[1];

  return session.dispatch([&](auto space) -> Result<ops::BatchRun, ops::BatchedError> {
    using Space = decltype(space);
    return with_dtype(oa->dtype, [&](auto tag) -> Result<ops::BatchRun, ops::BatchedError> {
      using T = decltype(tag);
      const std::complex<double> beta_used = into != nullptr ? beta : std::complex<double>(0.0);
      if (const char* unfit = unfit_scalar<T>(alpha, beta_used)) return imaginary_scalar(kLargeGemm, unfit);
      // One "item". The session's Gemm slot says whether KokkosBlas::gemm may run it (its BLAS TPL on
      // host, an independent runtime; the space's own kernels or cuBLAS on device), then tfbench's
      // sequential kernel, always allowed. The effective batch policy decides between them: inside an
      // outer lane, or under Sequential, the resolver rejects the BLAS and the sequential kernel runs.
      const ProviderDecl& blas =
          is_host_space<Space>() ? tfbench::providers::openblas : tfbench::providers::kokkos_same_pool;
      thread_local ProviderCandidates candidates;
      candidates.clear();
      for (const ProviderDecl* p : session.providers().candidates(ProviderSlot::Gemm)) {
        if (p == &blas) candidates.push_back(p);
      }
      candidates.push_back(&ops::providers::specialized);
      const BatchProblem problem{1, std::max({m, n, k}), double(m) * double(n) * double(k)};
      auto route =
          resolve_batch_route(session.context(), impl::effective_policy_ref(session), problem, candidates);
      if (!route) {
        BatchedError e{BatchedErrc::NoRoute, kLargeGemm, route.error().message, route.error(), -1, 0};
        return unexpected(std::move(e));
      }
      T* c_data = into != nullptr ? static_cast<T*>(oc.zero)
                                  : acquire_output<T, Space>(nullptr, output, m * n,
                                                             "tfbench::engine::ops::gemm::output");
      const ItemBatch<T> c = into != nullptr ? as_batch<T>(oc) : compact_batch<T>(c_data, m, n, 1);
      const ItemBatch<const T> ab = as_batch<const T>(*oa), bb = as_batch<const T>(*ob);
      if (route->provider == &blas) {
        execute_large_gemm(space, scalar_as<T>(alpha), ab, bb, scalar_as<T>(beta_used), c);
        return ops::BatchRun{route->strategy, 1, ops::ItemProvider::Blas, 1};
      }
      execute_gemm(space, ItemsRoute{RouteMode::Sequential, 1, ops::ItemProvider::Specialized},
                   GemmBatch<T>{ab, bb, c, scalar_as<T>(alpha), scalar_as<T>(beta_used)});
      return ops::BatchRun{route->strategy, 1, ops::ItemProvider::Specialized, 1};
    });
  });
}

}  // namespace tfbench::impl::batched
