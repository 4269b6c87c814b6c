// Session entry: typed admission before the callback, cleanup on every path.

#include <Kokkos_Core.hpp>

#include <utility>

#include "backend_state.hpp"
#include "tfbench/engine/exec/impl/entry.hpp"

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace tfbench::impl {

ThreadState& thread_state() noexcept {
  thread_local ThreadState state;
  return state;
}

void BackendState::poison(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(poison_mutex);
    if (!poisoned.load(std::memory_order_relaxed)) poison_reason = reason;
  }
  poisoned.store(true, std::memory_order_release);
}

std::string BackendState::reason() const {
  std::lock_guard<std::mutex> lock(poison_mutex);
  return poison_reason;
}

SessionEntryError entry_error(SessionEntryErrorKind kind, std::string message) {
  return SessionEntryError{kind, std::move(message)};
}

namespace {
// Whether this thread can fork the Kokkos OpenMP pool: Kokkos 3.4 keeps the pool's instance in a
// thread-local of the thread that initialized it, and runs kernels inline (reductions throw) elsewhere.
std::optional<SessionEntryError> check_fork(const BackendState& state) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (!state.forks) return std::nullopt;
  if (omp_get_level() > 0) {
    return entry_error(SessionEntryErrorKind::IncompatibleContext,
                       "session entry: the calling thread is inside an OpenMP parallel region; this "
                       "backend's kernels fork the OpenMP pool and cannot start from one of its threads");
  }
  if (!Kokkos::OpenMP::impl_is_initialized()) {
    return entry_error(SessionEntryErrorKind::Executor,
                       "session entry: Kokkos 3.4's OpenMP space forks only from the thread that "
                       "initialized Kokkos; enter this backend there (or use a one-thread backend)");
  }
#else
  (void)state;
#endif
  return std::nullopt;
}
}  // namespace

std::optional<SessionEntryError> check_entry(const BackendState& state) {
  if (thread_state().active) {
    return entry_error(SessionEntryErrorKind::Reentered,
                       "session entry: this thread already holds a session (or is a lane of one); "
                       "use the session it holds");
  }
  if (!Kokkos::is_initialized()) {
    return entry_error(SessionEntryErrorKind::Executor,
                       "session entry: Kokkos is not initialized (or already finalized)");
  }
  if (auto err = check_fork(state)) return err;
  if (state.poisoned.load(std::memory_order_acquire)) {
    return entry_error(SessionEntryErrorKind::ResourcePoisoned,
                       "session entry: backend resources are poisoned: " + state.reason());
  }
  return std::nullopt;
}

std::optional<SessionEntryError> acquire_permit(const BackendState& state, PermitNode& node) {
  node.claim = &state.claim;
  node.no_wait = state.admission == Admission::CallerManaged;
  switch (Arbiter::instance().acquire(node)) {
    case Arbiter::Outcome::Granted:
      return std::nullopt;
    case Arbiter::Outcome::Contended:
      return entry_error(SessionEntryErrorKind::Contended,
                         "session entry: the caller-managed domain " + state.claim.cpus.to_string() +
                             " is busy with another session (a caller-managed domain has no queue)");
    case Arbiter::Outcome::Poisoned:
      break;
  }
  return entry_error(SessionEntryErrorKind::ResourcePoisoned,
                     "session entry: the permit arbiter is poisoned: " + Arbiter::instance().poison_reason());
}

SessionCore root_core(BackendState& state) {
  SessionCore core;
  core.serial = ++thread_state().sessions;
  core.backend = &state;
  core.context = state.context;
  core.providers = &state.providers;
  core.default_policy = &state.default_policy;
  core.plan_cache = &state.plan_cache;
  core.host_pool = state.host_pool.get();
  core.device_pool = state.device_pool.get();
  core.lease_counters = &state.lease_counters;
  return core;
}

void run_entered(BackendState& state, SessionCore& core, FunctionRef<void(Session&)> body) {
  NativeServices services{&core, &state, nullptr};
  state.token_scope(services, [&](NativeSessionRef* token) {
    EnteredSession session(core, token);
    services.session = &session;
    body(session);
  });
}

ExecutionContext lane_context(const ExecutionContext& parent, int lane, int lanes) {
  ExecutionContext context = parent;
  context.space = context_space(parent.space, 1);
  context.threads = 1;
  context.outer_active = true;
  context.lane = lane;
  context.lanes = lanes;
  return context;
}

namespace {
struct PermitRelease {
  PermitNode& node;
  ~PermitRelease() { Arbiter::instance().release(node); }
};
}  // namespace

Result<void, SessionEntryError> run_session(BackendState* state, FunctionRef<void(Session&)> body) {
  if (!state) {
    return unexpected(entry_error(SessionEntryErrorKind::Executor, "session entry: moved-from backend"));
  }
  if (auto err = check_entry(*state)) return unexpected(std::move(*err));
  PermitNode node;
  if (auto err = acquire_permit(*state, node)) return unexpected(std::move(*err));
  PermitRelease release{node};
  if (state->poisoned.load(std::memory_order_acquire)) {  // poisoned while this thread waited
    return unexpected(entry_error(SessionEntryErrorKind::ResourcePoisoned,
                                  "session entry: backend resources are poisoned: " + state->reason()));
  }
  SessionCore core = root_core(*state);
  ActiveScope active(&core);
  run_entered(*state, core, body);
  return {};
}

}  // namespace tfbench::impl

namespace tfbench {

ExecSpaceKind context_space(ExecSpaceKind space, int threads) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if (threads == 1 && is_host_space(space)) return ExecSpaceKind::Serial;
#endif
  (void)threads;
  return space;
}

std::uint64_t Session::backend_id() const {
  return core().backend->id;
}

ScratchLease Session::scratch(std::size_t bytes) {
  const impl::SessionCore& c = core();
  ScratchLease lease;
  lease.memory_ = c.context.memory;
  if (lease.memory_ == MemoryKind::Host) {
    lease.host_ = c.host_pool->checkout(bytes);
  } else {
    lease.device_ = c.device_pool->checkout(bytes);
  }
  (*c.lease_counters)->scratch_opened.fetch_add(1, std::memory_order_relaxed);
  return lease;
}

void Session::poison(const std::string& reason) {
  core().backend->poison(reason);
}

}  // namespace tfbench
