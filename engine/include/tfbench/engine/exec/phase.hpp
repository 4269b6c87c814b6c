#pragma once
// The phase lease of a held session. A HeldSession keeps one session entered on its
// thread; held.phase(f) parks it and gives f a Phase whose run(lane) runs one lane per thread of the
// context's budget ON the context's own OpenMP threads (the Kokkos pool; in OpenMP the driving thread
// is member 0 of that pool), each lane with its own child session and scratch:
//
//   auto held = backend.hold();                      // typed SessionEntryError in held.error()
//   auto r = held.phase([&](tfbench::Phase& phase) {
//     return phase.run([&](std::size_t lane, tfbench::PhaseLane& l) -> tfbench::Result<void, MyError> {
//       while (!l.cancelled()) { /* pull work, run it on l.session() */ }
//       return {};
//     });
//   });
//
// run() joins every lane before it returns, on success, error and exception paths. The first lane error
// or exception sets the cooperative cancel flag (lanes must poll it and return; a lane must not wait
// for a peer). It returns one lane error after joining; a lane's session failure (child entry or
// cleanup) takes precedence over lane errors; a lane exception is rethrown after joining. Exceptions
// never cross the OpenMP region: each lane catches its own. A one-thread context runs one inline lane
// on the caller under the held permit, with no OpenMP region and no new thread. Lane outputs are the
// lane callback's to keep private and publish only after a successful run.

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/impl/lanes.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/exec/session_error.hpp"

namespace tfbench {

enum class PhaseErrorKind {
  NotHeld,             // the HeldSession failed to enter (see its error())
  WorkerOfTargetPool,  // the caller is a thread of the pool the lanes would run on
  WrongThread,         // the caller is not the thread that holds the session
  PhaseActive,         // a phase is already running on this held session
};
const char* name(PhaseErrorKind kind);

struct PhaseError {
  PhaseErrorKind kind = PhaseErrorKind::NotHeld;
  std::string message;
};

namespace impl {
class BackendState;
class HeldRoot;
struct PhaseAccess;
/// Phase entry checks, in this order (the first failing one is reported): held, target-pool membership
/// (before any wait), owner thread, no phase already active.
std::optional<PhaseError> check_phase_entry(HeldRoot& root);
void set_phase_active(HeldRoot& root, bool active);
/// Entry checks of HeldSession::with_session.
std::optional<SessionEntryError> check_held_entry(HeldRoot& root);
Session& held_session(HeldRoot& root);
std::size_t held_lanes(const HeldRoot& root);
}  // namespace impl

/// One lane's failure after joining: Lane(E) or Session(SessionEntryError).
template <class E>
class PhaseRunError {
 public:
  static PhaseRunError lane(E error) { return PhaseRunError(std::in_place_index<1>, std::move(error)); }
  static PhaseRunError session(SessionEntryError error) {
    return PhaseRunError(std::in_place_index<2>, std::move(error));
  }
  PhaseRunError() = default;
  bool is_lane() const { return state_.index() == 1; }
  bool is_session() const { return state_.index() == 2; }
  const E& lane_error() const { return std::get<1>(state_); }
  const SessionEntryError& session_error() const { return std::get<2>(state_); }

 private:
  template <std::size_t I, class T>
  PhaseRunError(std::in_place_index_t<I> index, T&& value) : state_(index, std::forward<T>(value)) {}
  std::variant<std::monostate, E, SessionEntryError> state_;
};

/// What a phase lane sees.
class PhaseLane {
 public:
  /// The lane's child session: threads() == 1, context().outer_active, its own scratch. It stays open
  /// for the whole lane, so its scratch and plans are reused across the lane's work items.
  Session& session() const { return session_; }
  /// Cooperative stop signal, set as soon as any lane fails, errors or throws.
  bool cancelled() const { return cancel_.load(std::memory_order_acquire); }

  PhaseLane(const PhaseLane&) = delete;
  PhaseLane& operator=(const PhaseLane&) = delete;

 private:
  friend struct impl::PhaseAccess;
  PhaseLane(Session& session, const std::atomic<bool>& cancel) : session_(session), cancel_(cancel) {}
  Session& session_;
  const std::atomic<bool>& cancel_;
};

class Phase {
 public:
  Phase(const Phase&) = delete;
  Phase(Phase&&) = delete;
  Phase& operator=(const Phase&) = delete;
  Phase& operator=(Phase&&) = delete;

  /// Lanes this phase drives: the context's thread budget, at least one.
  std::size_t lanes() const { return impl::held_lanes(root_); }

  /// Runs lane(index, PhaseLane&) -> Result<void, E> on every lane and returns after all finished.
  /// Each run starts with a fresh cancel flag, so runs repeat.
  template <class F>
  auto run(F&& lane);

 private:
  friend class HeldSession;
  explicit Phase(impl::HeldRoot& root) : root_(root) {}
  impl::HeldRoot& root_;
};

class HeldSession {
 public:
  HeldSession(const HeldSession&) = delete;
  HeldSession(HeldSession&&) = delete;
  HeldSession& operator=(const HeldSession&) = delete;
  HeldSession& operator=(HeldSession&&) = delete;
  /// Releases the permit. Must run on the holding thread (a held session is bound to it).
  ~HeldSession();

  bool ok() const { return root_ != nullptr; }
  explicit operator bool() const { return ok(); }
  /// Why entry failed (meaningful when !ok()).
  const SessionEntryError& error() const { return error_; }

  /// The held root session (precondition: ok()). Do not use it while a phase runs.
  Session& session() { return impl::held_session(*root_); }

  /// Runs f(Session&) on the held root session: typed error if not held, off the holding thread,
  /// during a phase (Reentered), or if the backend was poisoned.
  template <class F>
  Result<std::decay_t<std::invoke_result_t<F&, Session&>>, SessionEntryError> with_session(F&& f) {
    using R = std::decay_t<std::invoke_result_t<F&, Session&>>;
    if (!root_) return unexpected(error_);
    if (auto err = impl::check_held_entry(*root_)) return unexpected(std::move(*err));
    if constexpr (std::is_void<R>::value) {
      f(impl::held_session(*root_));
      return {};
    } else {
      return Result<R, SessionEntryError>(f(impl::held_session(*root_)));
    }
  }

  /// Parks the held session and runs f(Phase&). Rejected with a typed error, before any wait, when
  /// the caller is a worker of the pool the lanes would run on.
  template <class F>
  Result<std::decay_t<std::invoke_result_t<F&, Phase&>>, PhaseError> phase(F&& f) {
    using R = std::decay_t<std::invoke_result_t<F&, Phase&>>;
    if (!root_) return unexpected(PhaseError{PhaseErrorKind::NotHeld, "phase: " + error_.message});
    if (auto err = impl::check_phase_entry(*root_)) return unexpected(std::move(*err));
    struct Active {
      impl::HeldRoot& root;
      explicit Active(impl::HeldRoot& r) : root(r) { impl::set_phase_active(root, true); }
      ~Active() { impl::set_phase_active(root, false); }
    } active(*root_);
    Phase phase(*root_);
    if constexpr (std::is_void<R>::value) {
      f(phase);
      return {};
    } else {
      return Result<R, PhaseError>(f(phase));
    }
  }

 private:
  friend class CpuBackend;
  explicit HeldSession(std::shared_ptr<impl::BackendState> state);
  std::shared_ptr<impl::BackendState> state_;
  std::unique_ptr<impl::HeldRoot> root_;
  SessionEntryError error_;
};

template <class F>
auto Phase::run(F&& lane) {
  using Ret = std::decay_t<std::invoke_result_t<F&, std::size_t, PhaseLane&>>;
  static_assert(impl::IsResult<Ret>::value && std::is_void<typename Ret::value_type>::value,
                "a phase lane returns tfbench::Result<void, E>");
  using E = typename Ret::error_type;
  using Out = Result<void, PhaseRunError<E>>;
  std::vector<std::optional<E>> errors(lanes());
  impl::LanesOutcome outcome = impl::run_phase_lanes(root_, [&](std::size_t index, PhaseLane& l) -> bool {
    Ret result = lane(index, l);
    if (result) return true;
    errors[index].emplace(result.error());
    return false;
  });
  if (outcome.exception) std::rethrow_exception(outcome.exception);
  if (outcome.session_error)
    return Out(unexpected(PhaseRunError<E>::session(std::move(*outcome.session_error))));
  for (auto& error : errors) {
    if (error) return Out(unexpected(PhaseRunError<E>::lane(std::move(*error))));
  }
  return Out();
}

}  // namespace tfbench
