// Lanes on the context's own OpenMP threads, for outer fan-out and phases.
//
// ThreadSanitizer sees an OpenMP runtime's fork/join synchronization only through a tool such as
// LLVM's Archer (the tsan preset loads it; docs/sessions.md), so the region body reads nothing the
// driver wrote through OpenMP's shared-data block: the task is published through an atomic (release by
// the driver, acquire by each lane) and every lane's end is a release RMW the driver acquires after the
// join. Those edges are real, not only for the tool, and hold on any runtime.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <vector>

#include "backend_state.hpp"
#include "tfbench/engine/core/thread_modes.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"
#include "tfbench/engine/exec/phase.hpp"

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace tfbench::impl {

namespace {

struct LaneTask {
  virtual void run_lane(int lane, int lanes) noexcept = 0;
  int lanes = 1;
  std::atomic<int> finished{0};
  ThreadModes modes;  // the calling thread's modes, carried into every lane

 protected:
  ~LaneTask() = default;
};

std::atomic<LaneTask*> g_lane_task{nullptr};

void lane_entry() noexcept {
  LaneTask* task = g_lane_task.load(std::memory_order_acquire);
#if defined(KOKKOS_ENABLE_OPENMP)
  const int first = omp_get_thread_num();
  const int stride = omp_get_num_threads();
#else
  const int first = 0;
  const int stride = 1;
#endif
  // A smaller team than asked for (a thread limit) still runs every lane. Each lane runs with the
  // caller's modes; this thread's own come back after it (lanes catch their own exceptions).
  for (int lane = first; lane < task->lanes; lane += stride) {
    const ScopedThreadModes carried(task->modes);
    task->run_lane(lane, task->lanes);
  }
  task->finished.fetch_add(1, std::memory_order_acq_rel);
}

// Runs task.run_lane once per lane and joins. One lane runs inline: no region, no thread.
void run_lanes(LaneTask& task) {
  if (task.lanes <= 1) {
    task.run_lane(0, 1);
    return;
  }
  task.modes = thread_modes();
#if defined(KOKKOS_ENABLE_OPENMP)
  g_lane_task.store(&task, std::memory_order_release);
#pragma omp parallel num_threads(task.lanes)
  { lane_entry(); }
  (void)task.finished.load(std::memory_order_acquire);
  g_lane_task.store(nullptr, std::memory_order_relaxed);
#else
  for (int lane = 0; lane < task.lanes; ++lane) task.run_lane(lane, task.lanes);
#endif
}

struct LaneSlot {
  std::exception_ptr exception;
  std::optional<SessionEntryError> session_error;
};

LanesOutcome compose(std::vector<LaneSlot>& slots) {
  LanesOutcome outcome;
  for (auto& slot : slots) {
    if (!outcome.exception && slot.exception) outcome.exception = slot.exception;
    if (!outcome.session_error && slot.session_error) outcome.session_error = std::move(slot.session_error);
  }
  return outcome;
}

SessionEntryError poisoned_error(const BackendState& state, const char* where) {
  return entry_error(SessionEntryErrorKind::ResourcePoisoned,
                     std::string(where) + ": backend resources are poisoned: " + state.reason());
}

}  // namespace

bool can_fork_pool_here() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return omp_get_level() == 0 && Kokkos::OpenMP::impl_is_initialized();
#else
  return false;
#endif
}

bool is_target_pool_worker() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (omp_get_level() == 0) return false;
  // Kokkos 3.4 numbers the pool's threads at initialization; other threads keep id 0.
  return Kokkos::OpenMP::impl_is_initialized() || Kokkos::OpenMP::impl_hardware_thread_id() != 0;
#else
  return false;
#endif
}

void run_lane_session(BackendState& state, const SessionCore& parent, const ProviderSet* providers, int lane,
                      int lanes, FunctionRef<void(Session&)> body) {
  SessionCore core;
  core.serial = ++thread_state().sessions;
  core.backend = parent.backend;
  core.context = lane_context(parent.context, lane, lanes);
  core.providers = providers;
  core.default_policy = parent.default_policy;
  core.scoped_policy = parent.scoped_policy;
  core.plan_cache = parent.plan_cache;
  core.host_pool = parent.host_pool;
  core.device_pool = parent.device_pool;
  core.lease_counters = parent.lease_counters;
  ActiveScope active(&core);
  run_entered(state, core, body);
}

LanesOutcome run_outer_lanes(Session& root, int lanes, FunctionRef<void(OuterLane&)> body) {
  SessionCore& parent = SessionAccess::core(root);
  BackendState& state = *parent.backend;
  LanesOutcome outcome;
  if (lanes > 1 && !can_fork_pool_here()) {
    outcome.session_error =
        entry_error(SessionEntryErrorKind::IncompatibleContext,
                    "outer lanes: the calling thread cannot fork the session's OpenMP pool "
                    "(not the thread that initialized Kokkos, or inside a parallel region)");
    return outcome;
  }
  std::atomic<bool> cancel{false};
  std::vector<LaneSlot> slots(static_cast<std::size_t>(std::max(lanes, 1)));
  const ProviderSet* providers = &root.providers();

  struct Task final : LaneTask {
    BackendState& state;
    const SessionCore& parent;
    const ProviderSet* providers;
    std::atomic<bool>& cancel;
    std::vector<LaneSlot>& slots;
    FunctionRef<void(OuterLane&)> body;
    Task(BackendState& s, const SessionCore& p, const ProviderSet* pr, std::atomic<bool>& c,
         std::vector<LaneSlot>& sl, FunctionRef<void(OuterLane&)> b)
        : state(s), parent(p), providers(pr), cancel(c), slots(sl), body(b) {}
    void run_lane(int lane, int count) noexcept override {
      LaneSlot& slot = slots[static_cast<std::size_t>(lane)];
      try {
        if (cancel.load(std::memory_order_acquire)) return;
        if (state.poisoned.load(std::memory_order_acquire)) {
          slot.session_error = poisoned_error(state, "outer lane entry");
          cancel.store(true, std::memory_order_release);
          return;
        }
        run_lane_session(state, parent, providers, lane, count, [&](Session& session) {
          OuterLane view(session, lane, count, cancel);
          body(view);
        });
      } catch (...) {
        slot.exception = std::current_exception();
        cancel.store(true, std::memory_order_release);
      }
    }
  } task(state, parent, providers, cancel, slots, body);
  task.lanes = std::max(lanes, 1);
  run_lanes(task);
  return compose(slots);
}

struct PhaseAccess {
  static PhaseLane make(Session& session, const std::atomic<bool>& cancel) {
    return PhaseLane(session, cancel);
  }
};

LanesOutcome run_phase_lanes(HeldRoot& root, FunctionRef<bool(std::size_t, PhaseLane&)> body) {
  const int lanes = root.core.context.threads;
  LanesOutcome outcome;
  // At most one child session per worker and no nested phase: a run from inside a lane of this
  // phase is refused on every context size (on one thread the lane runs inline on the holding thread,
  // so the owner and fork checks below would let it through).
  if (root.run_active.load(std::memory_order_acquire)) {
    outcome.session_error =
        entry_error(SessionEntryErrorKind::IncompatibleContext,
                    "phase run: called from inside a lane of a running phase (no nested runs; a lane "
                    "works on its own child session)");
    return outcome;
  }
  if (std::this_thread::get_id() != root.owner || (lanes > 1 && !can_fork_pool_here())) {
    outcome.session_error =
        entry_error(SessionEntryErrorKind::IncompatibleContext,
                    "phase run: called off the holding thread or from inside a parallel region of its pool");
    return outcome;
  }
  std::atomic<bool> cancel{false};  // fresh per run: a later run does real work
  std::vector<LaneSlot> slots(static_cast<std::size_t>(lanes));

  struct Task final : LaneTask {
    HeldRoot& root;
    std::atomic<bool>& cancel;
    std::vector<LaneSlot>& slots;
    FunctionRef<bool(std::size_t, PhaseLane&)> body;
    Task(HeldRoot& r, std::atomic<bool>& c, std::vector<LaneSlot>& s,
         FunctionRef<bool(std::size_t, PhaseLane&)> b)
        : root(r), cancel(c), slots(s), body(b) {}
    void run_lane(int lane, int count) noexcept override {
      BackendState& state = *root.state;
      LaneSlot& slot = slots[static_cast<std::size_t>(lane)];
      try {
        // Armed before entry: a lane that sees cancellation never opens its child session.
        if (cancel.load(std::memory_order_acquire)) return;
        if (state.poisoned.load(std::memory_order_acquire)) {
          slot.session_error = poisoned_error(state, "phase lane entry");
          cancel.store(true, std::memory_order_release);
          return;
        }
        run_lane_session(state, root.core, root.core.providers, lane, count, [&](Session& session) {
          if (cancel.load(std::memory_order_acquire)) return;  // observed after entry
          PhaseLane view = PhaseAccess::make(session, cancel);
          if (!body(static_cast<std::size_t>(lane), view)) cancel.store(true, std::memory_order_release);
        });
        if (state.poisoned.load(std::memory_order_acquire)) {  // the lane could not clean up
          slot.session_error = poisoned_error(state, "phase lane cleanup");
          cancel.store(true, std::memory_order_release);
        }
      } catch (...) {
        slot.exception = std::current_exception();
        cancel.store(true, std::memory_order_release);
      }
    }
  } task(root, cancel, slots, body);
  task.lanes = lanes;
  struct RunActive {
    std::atomic<bool>& flag;
    explicit RunActive(std::atomic<bool>& f) : flag(f) { flag.store(true, std::memory_order_release); }
    ~RunActive() { flag.store(false, std::memory_order_release); }
  } active(root.run_active);
  run_lanes(task);
  return compose(slots);
}

}  // namespace tfbench::impl

namespace tfbench {

std::pair<std::int64_t, std::int64_t> lane_item_range(int lane, int lanes, std::int64_t items) {
  if (lanes < 1 || lane < 0 || lane >= lanes || items <= 0) return {0, 0};
  const std::int64_t base = items / lanes;
  const std::int64_t extra = items % lanes;
  const std::int64_t first = lane * base + std::min<std::int64_t>(lane, extra);
  return {first, first + base + (lane < extra ? 1 : 0)};
}

Result<OuterFanOut, RouteError> check_outer_fan_out(const Session& session,
                                                    const ProviderCandidates& reachable, int lanes) {
  const ExecutionContext& context = session.context();
  if (lanes < 0) {
    return unexpected(RouteError{RouteErrorKind::InvalidProblem, BatchStrategy::OuterParallel,
                                 "outer fan-out: negative lane count " + std::to_string(lanes)});
  }
  for (const ProviderDecl* provider : reachable) {
    if (!provider) continue;
    if (auto allowed = check_provider_allowed(ExecutionContext{context.space, 1, true}, *provider);
        !allowed) {
      RouteError error = allowed.error();
      error.strategy = BatchStrategy::OuterParallel;
      error.message = "outer fan-out rejected before any lane ran: " + error.message;
      return unexpected(std::move(error));
    }
  }
  int width = lanes == 0 ? context.threads : std::min(lanes, context.threads);
  if (!context.can_fan_out() || !is_host_space(context.space)) width = 1;
  return OuterFanOut(&impl::SessionAccess::core(session), std::max(width, 1));
}

}  // namespace tfbench
