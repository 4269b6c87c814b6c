#pragma once
// The state every session reaches through Session::core(): the borrowed backend resources and the
// per-session context and scoped policy. Internal: custom sessions derive from SessionWrapper, which
// forwards to its delegate's core.

#include <cstdint>
#include <memory>
#include <optional>

#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/exec/providers.hpp"
#include "tfbench/engine/storage/pool.hpp"

namespace tfbench {
class PlanCache;
}

namespace tfbench::impl {

class BackendState;
struct LeaseCounters;

struct SessionCore {
  std::uint64_t serial = 0;  // distinguishes sessions that reuse one stack address (per thread)
  BackendState* backend = nullptr;
  ExecutionContext context;
  const ProviderSet* providers = nullptr;
  const BatchPolicy* default_policy = nullptr;
  std::optional<BatchPolicy> scoped_policy;
  PlanCache* plan_cache = nullptr;
  HostPool* host_pool = nullptr;
  DevicePool* device_pool = nullptr;
  const std::shared_ptr<LeaseCounters>* lease_counters = nullptr;
  /// The root of a held session while a phase runs: its numerical execution is parked (operations
  /// on it are refused with a typed error; the lanes work on their own child sessions).
  bool parked = false;
};

/// Restores a session's scoped batch policy on scope exit, on return and on exception.
class ScopedBatchPolicy {
 public:
  ScopedBatchPolicy(SessionCore& core, const BatchPolicy& policy)
      : core_(core), previous_(core.scoped_policy) {
    core_.scoped_policy = policy;
  }
  ~ScopedBatchPolicy() { core_.scoped_policy = previous_; }
  ScopedBatchPolicy(const ScopedBatchPolicy&) = delete;
  ScopedBatchPolicy& operator=(const ScopedBatchPolicy&) = delete;

 private:
  SessionCore& core_;
  std::optional<BatchPolicy> previous_;
};

}  // namespace tfbench::impl
