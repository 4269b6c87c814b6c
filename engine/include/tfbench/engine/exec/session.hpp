#pragma once
// A session: the temporary entered authority of a backend, entered only through a typed, fallible
// admission (session_error.hpp). Operations borrow it; it
// borrows the backend's pools, plan cache and providers and never resets them on exit. Sessions are
// created only by a backend's with_session, a HeldSession, or as the child session of a lane.
//
// Customization: a user session derives from SessionWrapper, overrides the hooks it needs
// (providers(): the operation candidates; native_session(): whether to forward the delegate's native
// token, withheld by default) and keeps the delegate's context: it cannot change the thread budget.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/exec/impl/session_core.hpp"
#include "tfbench/engine/exec/leases.hpp"
#include "tfbench/engine/exec/native_session.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/exec/providers.hpp"

namespace tfbench {

class SessionWrapper;
namespace impl {
struct SessionAccess;
}

class Session {
 public:
  virtual ~Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // ---- execution context
  const ExecutionContext& context() const { return core().context; }
  /// The Kokkos space this session's kernels run on (Serial for a one-thread host context).
  ExecSpaceKind space() const { return core().context.space; }
  /// The thread budget.
  int threads() const { return core().context.threads; }
  /// Calls f with an instance of the session's Kokkos execution space (Kokkos::Serial, Kokkos::OpenMP
  /// or Kokkos::Cuda): the one place an operation turns the runtime space into its static type.
  template <class F>
  decltype(auto) dispatch(F&& f) const {
    return dispatch_exec_space(space(), std::forward<F>(f));
  }

  // ---- borrowed backend resources
  /// The backend's plan cache (shared by every session and lane of the backend; thread-safe).
  PlanCache& plan_cache() const { return *core().plan_cache; }
  /// The backend default batch policy, and the scoped override in force (if any).
  const BatchPolicy& backend_batch_policy() const { return *core().default_policy; }
  const std::optional<BatchPolicy>& scoped_batch_policy() const { return core().scoped_policy; }
  /// The backend's pools (thread-safe; lanes share them). Outputs and scratch of a session come from
  /// the pool of its context().memory.
  HostPool& host_pool() const { return *core().host_pool; }
  DevicePool& device_pool() const { return *core().device_pool; }

  // ---- leases: owning checkouts that coexist; see leases.hpp
  /// Uninitialized scratch bytes in the session's memory, back to the pool when the lease ends.
  ScratchLease scratch(std::size_t bytes);
  /// An uninitialized output of numel(shape) elements of T in the session's memory; publish() it
  /// after writing every element. Throws StorageError for an invalid shape.
  template <class T, class R = DynRank>
  OutputLease<T, R> output_lease(Extents<R> shape);

  /// Operation hook: the providers operations choose from, in preference order per slot.
  virtual const ProviderSet& providers() const { return *core().providers; }
  /// The process-unique id of the backend this session belongs to.
  std::uint64_t backend_id() const;
  /// True for a held session's root while a phase runs on it: operations on it are refused
  /// (OpErrorCode::SessionParked / BatchedErrc::SessionParked) until the phase returns.
  bool parked() const { return core().parked; }

  // ---- native access and failure reporting
  /// The native token of a backend session; none for custom sessions unless they forward one.
  virtual NativeSessionRef* native_session() { return nullptr; }
  /// Reports an unrecoverable resource failure (e.g. a device context left unusable): every later
  /// entry into this backend fails with ResourcePoisoned until CpuBackend/DeviceBackend::reset().
  void poison(const std::string& reason);

 protected:
  Session() = default;
  virtual impl::SessionCore& core() = 0;
  const impl::SessionCore& core() const { return const_cast<Session*>(this)->core(); }
  /// Lets a wrapper forward its delegate's core.
  static impl::SessionCore& core_of(Session& session) { return session.core(); }

  friend struct impl::SessionAccess;
};

namespace impl {
struct SessionAccess {
  static SessionCore& core(Session& session) { return session.core(); }
  static const SessionCore& core(const Session& session) { return session.core(); }
};
}  // namespace impl

template <class T, class R>
OutputLease<T, R> Session::output_lease(Extents<R> shape) {
  const Index n = impl::checked_elements<T>(Span<const Index>(shape.data(), shape.size()), "output_lease");
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  const impl::SessionCore& c = core();
  PooledBlock<Kokkos::HostSpace> host;
  PooledBlock<DeviceMemorySpace> device;
  if (c.context.memory == MemoryKind::Host) {
    host = c.host_pool->checkout(bytes);
  } else {
    device = c.device_pool->checkout(bytes);
  }
  return OutputLease<T, R>(std::move(host), std::move(device), std::move(shape), n, c.context.memory,
                           *c.lease_counters);
}

/// Delegation/composition base for user sessions: forwards everything to `inner`, withholds the
/// native token unless native_session() is overridden to forward it.
class SessionWrapper : public Session {
 public:
  explicit SessionWrapper(Session& inner) : inner_(inner) {}
  Session& inner() const { return inner_; }
  const ProviderSet& providers() const override { return inner_.providers(); }

 protected:
  impl::SessionCore& core() override { return core_of(inner_); }

 private:
  Session& inner_;
};

/// Runs f(session) with `policy` as the session's scoped batch policy; the previous scoped policy is
/// restored on return and on exception. Nesting gives per-operation > scoped > backend default.
template <class F>
decltype(auto) with_batch_policy(Session& session, const BatchPolicy& policy, F&& f) {
  impl::ScopedBatchPolicy scope(impl::SessionAccess::core(session), policy);
  return std::forward<F>(f)(session);
}

}  // namespace tfbench
