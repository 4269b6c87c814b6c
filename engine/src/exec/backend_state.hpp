#pragma once
// Internal state shared by the backends, the entry path, held sessions and lanes.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "arbiter.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/impl/function_ref.hpp"
#include "tfbench/engine/exec/impl/session_core.hpp"
#include "tfbench/engine/exec/native_session.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench::impl {

/// What this thread is executing for: the core of its entered session, held session or lane.
/// Trivially constructible, so the thread-local costs no guard on the entry path.
struct ThreadState {
  const SessionCore* active = nullptr;
  std::uint64_t sessions = 0;  // sessions started on this thread (SessionCore::serial)
};
ThreadState& thread_state() noexcept;

struct NativeServices;
/// Makes the backend leaf's token for `services` live and runs body with it (only the leaf can); the
/// token is null when the thread's token ring is full (the visitor then says NoToken).
using TokenScope = void (*)(NativeServices& services, FunctionRef<void(NativeSessionRef*)> body);

class BackendState {
 public:
  enum class Flavor { Cpu, Device };

  Flavor flavor = Flavor::Cpu;
  std::uint64_t id = 0;
  ExecutionContext context;  // the root context of its sessions
  Claim claim;
  Admission admission = Admission::Queue;
  bool forks = false;  // kernels fork the Kokkos OpenMP pool: initializing thread only, not in a region
  BatchPolicy default_policy;
  ProviderSet providers;
  PlanCache plan_cache;
  std::shared_ptr<HostPool> host_pool;
  std::shared_ptr<DevicePool> device_pool;
  std::shared_ptr<LeaseCounters> lease_counters = std::make_shared<LeaseCounters>();
  TokenScope token_scope = nullptr;

  std::atomic<bool> poisoned{false};
  mutable std::mutex poison_mutex;
  std::string poison_reason;

  void poison(const std::string& reason);
  std::string reason() const;
};

/// The services behind a native token: the concrete session, its core and backend.
struct NativeServices {
  SessionCore* core = nullptr;
  BackendState* backend = nullptr;
  Session* session = nullptr;
};

/// The concrete session of every backend: a core plus the token the backend leaf made for it.
class EnteredSession final : public Session {
 public:
  EnteredSession(SessionCore& core, NativeSessionRef* token) : core_(core), token_(token) {}
  NativeSessionRef* native_session() override { return token_; }

 protected:
  SessionCore& core() override { return core_; }

 private:
  SessionCore& core_;
  NativeSessionRef* token_;
};

SessionEntryError entry_error(SessionEntryErrorKind kind, std::string message);

/// Checks that need no arbiter: reentry, the executor, poisoned resources.
std::optional<SessionEntryError> check_entry(const BackendState& state);
/// Acquires the permit (may wait in FIFO order); Contended / ResourcePoisoned otherwise.
std::optional<SessionEntryError> acquire_permit(const BackendState& state, PermitNode& node);

/// A core for a new root session of `state`.
SessionCore root_core(BackendState& state);

/// Runs body on a fresh EnteredSession for `core` (with the leaf's token), on this thread.
void run_entered(BackendState& state, SessionCore& core, FunctionRef<void(Session&)> body);

/// A lane context: sequential child of `parent`.
ExecutionContext lane_context(const ExecutionContext& parent, int lane, int lanes);

/// Makes `core` this thread's active session for the scope.
class ActiveScope {
 public:
  explicit ActiveScope(const SessionCore* core) : thread_(thread_state()), previous_(thread_.active) {
    thread_.active = core;
  }
  ~ActiveScope() { thread_.active = previous_; }
  ActiveScope(const ActiveScope&) = delete;
  ActiveScope& operator=(const ActiveScope&) = delete;

 private:
  ThreadState& thread_;
  const SessionCore* previous_;
};

/// Runs body on a sequential child session of `parent` (lane `lane` of `lanes`) on this thread. The
/// child inherits the parent's providers and effective scoped policy; no arbiter permit is taken: it
/// runs under its parent's.
void run_lane_session(BackendState& state, const SessionCore& parent, const ProviderSet* providers, int lane,
                      int lanes, FunctionRef<void(Session&)> body);

/// Whether the calling thread can fork the Kokkos OpenMP pool now (initializing thread, no region).
bool can_fork_pool_here();
/// Whether the calling thread is a thread of the Kokkos OpenMP pool running inside one of its
/// parallel regions (the initializing thread, or a worker Kokkos set up at initialization).
bool is_target_pool_worker();

/// A held session's root: the permit, the root core and session, and the leaf's token.
class HeldRoot {
 public:
  virtual ~HeldRoot() = default;
  virtual NativeSessionRef* token() = 0;

  BackendState* state = nullptr;
  SessionCore core;
  PermitNode node;
  std::thread::id owner;
  // A Phase::run is executing its lanes (a lane must not start another); read from lane threads.
  std::atomic<bool> run_active{false};
  NativeServices services;
  std::optional<EnteredSession> session;
};

}  // namespace tfbench::impl
