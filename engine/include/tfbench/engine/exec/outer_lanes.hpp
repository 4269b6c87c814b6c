#pragma once
// Outer fan-out: lanes are started explicitly, never inferred. Each lane runs on one of the
// session's own OpenMP threads (inline on the caller for one lane) with a sequential child session
// (one thread, outer_active set, its own scratch). Every provider the lanes can reach is checked
// first: an independent runtime (threaded OpenBLAS/LAPACK) is rejected before any lane runs.
//
//   auto ok = tfbench::with_outer_lanes(session, {&providers::kokkos_batched_serial},
//                                       [&](tfbench::OuterLane& lane) { ... lane.session() ... });

#include <cstdint>
#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/impl/lanes.hpp"
#include "tfbench/engine/exec/providers.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench {

/// Proof that every provider reachable from the lanes may run inside outer fan-out, for one session.
class OuterFanOut {
 public:
  int lanes() const { return lanes_; }

 private:
  friend Result<OuterFanOut, RouteError> check_outer_fan_out(const Session&, const ProviderCandidates&, int);
  OuterFanOut(const impl::SessionCore* core, int lanes) : core_(core), serial_(core->serial), lanes_(lanes) {}
  const impl::SessionCore* core_;
  std::uint64_t serial_;
  int lanes_;
  template <class F>
  friend Result<void, RouteError> submit_outer(Session&, const OuterFanOut&, F&&);
};

/// Checks `reachable` for outer fan-out in `session` and fixes the lane count: `lanes` (0 = the
/// thread budget), at most the budget, 1 when the context cannot fan out (a one-thread context or a
/// lane: fan-out never widens inside a lane, but its provider rules still apply).
Result<OuterFanOut, RouteError> check_outer_fan_out(const Session& session,
                                                    const ProviderCandidates& reachable, int lanes = 0);

/// What a lane sees.
class OuterLane {
 public:
  int index() const { return index_; }
  int count() const { return count_; }
  /// The lane's child session: threads() == 1, context().outer_active, its own scratch.
  Session& session() const { return session_; }
  /// Set once a peer lane has thrown: stop pulling work.
  bool cancelled() const { return cancel_.load(std::memory_order_acquire); }

  OuterLane(Session& session, int index, int count, const std::atomic<bool>& cancel)
      : session_(session), index_(index), count_(count), cancel_(cancel) {}
  OuterLane(const OuterLane&) = delete;
  OuterLane& operator=(const OuterLane&) = delete;

 private:
  Session& session_;
  int index_;
  int count_;
  const std::atomic<bool>& cancel_;
};

/// Runs lane_fn(OuterLane&) once per lane of `checked`, joins every lane, then rethrows one lane
/// exception (peers see cancelled()). RouteError when the proof belongs to another session or the
/// calling thread cannot drive the session's pool.
template <class F>
Result<void, RouteError> submit_outer(Session& session, const OuterFanOut& checked, F&& lane_fn) {
  const impl::SessionCore& core = impl::SessionAccess::core(session);
  if (checked.core_ != &core || checked.serial_ != core.serial) {
    return unexpected(RouteError{RouteErrorKind::WrongThread, BatchStrategy::OuterParallel,
                                 "submit_outer: the fan-out proof was checked for another session"});
  }
  impl::LanesOutcome outcome =
      impl::run_outer_lanes(session, checked.lanes(), [&](OuterLane& lane) { lane_fn(lane); });
  if (outcome.exception) std::rethrow_exception(outcome.exception);
  if (outcome.session_error) {
    const bool thread = outcome.session_error->kind == SessionEntryErrorKind::IncompatibleContext;
    return unexpected(RouteError{thread ? RouteErrorKind::WrongThread : RouteErrorKind::LaneEntryFailed,
                                 BatchStrategy::OuterParallel, outcome.session_error->message});
  }
  return {};
}

/// submit_outer over items: item_fn(OuterLane&, i) for each i of the lane's contiguous chunk.
template <class F>
Result<void, RouteError> submit_outer_items(Session& session, const OuterFanOut& checked, std::int64_t items,
                                            F&& item_fn) {
  return submit_outer(session, checked, [&](OuterLane& lane) {
    const auto range = lane_item_range(lane.index(), lane.count(), items);
    for (std::int64_t i = range.first; i < range.second && !lane.cancelled(); ++i) item_fn(lane, i);
  });
}

/// check_outer_fan_out + submit_outer.
template <class F>
Result<void, RouteError> with_outer_lanes(Session& session, const ProviderCandidates& reachable, F&& lane_fn,
                                          int lanes = 0) {
  auto checked = check_outer_fan_out(session, reachable, lanes);
  if (!checked) return unexpected(checked.error());
  return submit_outer(session, *checked, std::forward<F>(lane_fn));
}

}  // namespace tfbench
