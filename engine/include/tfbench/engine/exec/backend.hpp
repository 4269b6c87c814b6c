#pragma once
// Backends: a CpuBackend over a Kokkos host space and a DeviceBackend over
// Kokkos::DefaultExecutionSpace, two thin types over one implementation (impl::BackendHandle) that
// differ in how they are created, in the native services their tokens recover, and in that only a CPU
// backend holds sessions for phases. A backend owns its execution policy, providers, pools and plan
// cache, and work runs on it only inside a session it admitted; with_session(f) admits the caller and
// runs f(Session&):
//
//   auto r = backend.with_session([&](tfbench::Session& s) { return op(s); });
//   // r: Result<decltype(op(s)), SessionEntryError>; op's own Result is returned as is.
//
// Admission goes through one process-wide permit arbiter: backends whose CPU sets overlap (by default
// every backend claims the whole allowed set) are serialized with a FIFO wait across threads; a thread
// that already holds a session never waits (Reentered), so waits cannot form a cycle.
//
// Kokkos 3.4 facts this follows: its OpenMP space forks only from the thread that initialized Kokkos,
// and runs every kernel on the whole pool. So an OpenMP context has a budget of 1 (its kernels then run
// on Kokkos::Serial: no parallel region is paid for) or the pool size, and a multi-thread OpenMP
// context (and the device backend of a host build) is entered from the initializing thread only.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/cpu_set.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/exec/impl/entry.hpp"
#include "tfbench/engine/exec/native_session.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/exec/providers.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/exec/session_error.hpp"

namespace tfbench {

class HeldSession;

enum class BackendErrorKind {
  InvalidConfig,    // a budget or set out of range
  SpaceNotEnabled,  // the requested Kokkos space is not in this build
  NotInitialized,   // Kokkos is not initialized
};
const char* name(BackendErrorKind kind);

struct BackendError {
  BackendErrorKind kind = BackendErrorKind::InvalidConfig;
  std::string message;
};

/// How a backend waits for its domain.
enum class Admission {
  /// Wait in FIFO order behind other sessions on overlapping CPU sets (the default).
  Queue,
  /// The caller schedules work on this domain itself and the engine never queues on it: a busy
  /// domain is reported as Contended.
  CallerManaged,
};
const char* name(Admission admission);

struct CpuBackendConfig {
  ExecSpaceKind space = ExecSpaceKind::Serial;  // Serial or OpenMP
  /// Thread budget: 0 = all threads of the space; 1 runs on Kokkos::Serial; an OpenMP budget must be
  /// 1 or the OpenMP pool size (Kokkos 3.4 runs every OpenMP kernel on the whole pool).
  int threads = 0;
  std::optional<CpuSet> cpus;  // claimed set; default: the whole allowed set
  Admission admission = Admission::Queue;
  BatchPolicy batch_policy;  // the backend default (lowest precedence)
  std::size_t plan_cache_capacity = PlanCache::kDefaultCapacity;
  PoolConfig pool;  // the backend's pools (outputs, scratch)
};

struct DeviceBackendConfig {
  int device = 0;  // device ordinal (0 on host builds)
  Admission admission = Admission::Queue;
  BatchPolicy batch_policy;
  std::size_t plan_cache_capacity = PlanCache::kDefaultCapacity;
  PoolConfig pool;
};

/// Why a native visitor did not run.
enum class NativeAccessError {
  NoToken,         // the session offers no native token (a custom session that withholds it)
  ForeignBackend,  // the token belongs to another backend leaf
  WrongThread,     // the token is used off the thread that entered its session
  Expired,         // not the live token of any session: its session has ended (an escaped pointer)
};
const char* name(NativeAccessError error);

namespace impl {
struct NativeTokenAccess;

/// What every backend's native services offer; only a backend's recover() makes one.
class NativeView {
 public:
  const ExecutionContext& context() const;
  std::uint64_t backend_id() const;
  /// The concrete backend session the token came from (not a wrapper around it).
  Session& session() const;

 protected:
  explicit NativeView(void* services) : services_(services) {}
  void* services_;
};
}  // namespace impl

/// The CPU backend's native services, recovered from a CPU token by with_cpu_native().
class CpuNative : public impl::NativeView {
 public:
  const CpuSet& cpus() const;
  /// OpenMP pool size of this process (0 without OpenMP).
  static int openmp_pool_size();

 private:
  friend struct impl::NativeTokenAccess;
  using NativeView::NativeView;
};

/// The device backend's native services, recovered by with_device_native().
class DeviceNative : public impl::NativeView {
 public:
  Kokkos::DefaultExecutionSpace space() const { return Kokkos::DefaultExecutionSpace(); }

 private:
  friend struct impl::NativeTokenAccess;
  using NativeView::NativeView;
};

namespace impl {

/// The members CpuBackend and DeviceBackend share: a move-only handle to one backend's state.
class BackendHandle {
 public:
  /// Admits the caller and runs f(Session&). Errors are typed and reported before f runs; f's own
  /// result (even a Result) is returned as the value.
  template <class F>
  Result<SessionResult<F>, SessionEntryError> with_session(F&& f) {
    return enter_with(state_.get(), std::forward<F>(f));
  }

  /// The context sessions of this backend start with.
  const ExecutionContext& context() const;
  std::uint64_t id() const;
  Admission admission() const;
  const BatchPolicy& batch_policy() const;
  /// Changes the backend default / a provider slot. Admitted like a session (waits for sessions on
  /// this domain to finish; Reentered from inside one), so no session sees a change half-way.
  Result<void, SessionEntryError> set_batch_policy(const BatchPolicy& policy);
  Result<void, SessionEntryError> set_providers(ProviderSlot slot,
                                                std::vector<const ProviderDecl*> candidates);
  std::uint64_t provider_generation() const;
  PlanCache& plan_cache();
  /// The pools sessions draw outputs and scratch from (stats, configure, clear), and lease counters.
  const std::shared_ptr<HostPool>& host_pool() const;
  const std::shared_ptr<DevicePool>& device_pool() const;
  LeaseStats lease_stats() const;
  /// Whether a session reported an unrecoverable failure (Session::poison), and why.
  bool poisoned() const;
  std::string poison_reason() const;
  /// Clears the poison after dropping possibly-corrupt state (plan cache, cached pool blocks). Admitted
  /// like a session.
  Result<void, SessionEntryError> reset();

 protected:
  explicit BackendHandle(std::shared_ptr<BackendState> state);
  BackendHandle(BackendHandle&&) noexcept;
  BackendHandle& operator=(BackendHandle&&) noexcept;
  ~BackendHandle();

  std::shared_ptr<BackendState> state_;
};

}  // namespace impl

class CpuBackend : public impl::BackendHandle {
 public:
  static Result<CpuBackend, BackendError> create(const CpuBackendConfig& config = {});
  /// create() for code that treats a bad configuration as a bug: throws std::invalid_argument.
  static CpuBackend serial();
  static CpuBackend openmp(int threads = 0);

  /// Holds a session on this thread until the HeldSession is destroyed (phases need one).
  HeldSession hold();
  const CpuSet& cpus() const;

  /// The services behind a CPU token; typed error for none, another leaf's token, or another thread.
  static Result<CpuNative, NativeAccessError> recover(NativeSessionRef* token);

 private:
  using BackendHandle::BackendHandle;
};

class DeviceBackend : public impl::BackendHandle {
 public:
  static Result<DeviceBackend, BackendError> create(const DeviceBackendConfig& config = {});
  /// create() that throws std::invalid_argument on a bad configuration.
  static DeviceBackend make();

  static Result<DeviceNative, NativeAccessError> recover(NativeSessionRef* token);

 private:
  using BackendHandle::BackendHandle;
};

namespace impl {
/// Runs f(Native&) on the services Backend::recover finds behind `session`'s token.
template <class Backend, class F>
auto with_native(Session& session, F&& f) {
  using Native = typename decltype(Backend::recover(nullptr))::value_type;
  using R = std::decay_t<std::invoke_result_t<F&, Native&>>;
  auto native = Backend::recover(session.native_session());
  if (!native) return Result<R, NativeAccessError>(unexpected(native.error()));
  if constexpr (std::is_void<R>::value) {
    f(*native);
    return Result<R, NativeAccessError>();
  } else {
    return Result<R, NativeAccessError>(f(*native));
  }
}
}  // namespace impl

/// Runs f(CpuNative&) if `session` carries a CPU backend token (its own, or one a wrapper forwards).
template <class F>
auto with_cpu_native(Session& session, F&& f)
    -> Result<std::decay_t<std::invoke_result_t<F&, CpuNative&>>, NativeAccessError> {
  return impl::with_native<CpuBackend>(session, std::forward<F>(f));
}

/// Runs f(DeviceNative&) if `session` carries a device backend token.
template <class F>
auto with_device_native(Session& session, F&& f)
    -> Result<std::decay_t<std::invoke_result_t<F&, DeviceNative&>>, NativeAccessError> {
  return impl::with_native<DeviceBackend>(session, std::forward<F>(f));
}

}  // namespace tfbench
