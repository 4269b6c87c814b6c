#pragma once
// Overridable batch strategy and thresholds. Precedence: per-operation > scoped
// (with_batch_policy) > backend default. The effective policy and the route are resolved before any
// output is written; a forced strategy that conflicts with a provider's declaration, or has no route,
// is a typed RouteError, never a silent fallback.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/exec/providers.hpp"

namespace tfbench {

class Session;
namespace ops {
class AutoTuning;  // Auto's measured choices (tfbench/engine/ops/batched/auto_tuning.hpp)
}

enum class BatchStrategy {
  Auto,              // thresholds and the lane cost model choose
  Sequential,        // sequential batch, sequential items (one provider call per item, no threads)
  OuterParallel,     // items split over outer lanes, each lane sequential
  ProviderItems,     // sequential batch, provider-managed items (the provider may thread each call)
  WholeBatchVendor,  // one vendor call for the whole batch
};
const char* name(BatchStrategy strategy);

/// The per-item overhead of the lane cost model for providers that declare none.
inline constexpr double kDefaultLaneItemOverheadNs = 50;

struct BatchThresholds {
  int vendor_batch_max_item_dim = 16;  // Auto uses a whole-batch call only for items this small
  int outer_min_items = 2;             // Auto fans out only batches at least this long
  int outer_min_items_per_lane = 1;    // ... and gives each lane at least this many items
  /// Cost model: per-item overhead. Unset: the candidate provider's declared item cost
  /// (ProviderDecl::item_overhead_ns), else kDefaultLaneItemOverheadNs. Set: used for every provider.
  std::optional<double> lane_item_overhead_ns;
  double lane_muladds_per_ns = 16;  // cost model: multiply-adds per ns of one lane
  double lane_min_work_ns = 8000;   // ... and each lane needs at least this much estimated work
  /// Contractions: multiply-adds per batch item up to which a step runs the direct strided kernel
  /// rather than packing its operands for a GEMM. Unset: the crossover the policy's tuning measured
  /// on this machine (`tfbench tune`), else the built-in impl::kDirectItemWork. Set: used as given.
  std::optional<double> direct_contraction_muladds;
  /// Whether a fan-out Auto chose is checked on its calls against the calling thread alone and run
  /// there while it is slower (docs/ops-batched.md, "The fan-out check"). false: Auto's route runs as
  /// chosen on every call. A forced OuterParallel is never checked.
  bool check_fan_out = true;

  bool operator==(const BatchThresholds& o) const;
  bool operator!=(const BatchThresholds& o) const { return !(*this == o); }
};

struct BatchPolicy {
  BatchStrategy strategy = BatchStrategy::Auto;
  BatchThresholds thresholds;
  /// Measured choices Auto consults before its built-in preference (only while `strategy` is Auto).
  /// A policy built by the caller has none unless it copies one: a per-operation or scoped policy
  /// without tuning sets Auto back to the model and the thresholds.
  std::shared_ptr<const ops::AutoTuning> tuning;

  bool operator==(const BatchPolicy& o) const {
    return strategy == o.strategy && thresholds == o.thresholds && tuning == o.tuning;
  }
  bool operator!=(const BatchPolicy& o) const { return !(*this == o); }
};

struct BatchProblem {
  std::int64_t items = 0;
  std::int64_t max_item_dim = 0;  // largest m, n or k of any item
  double muladds_per_item = 0;    // e.g. m*n*k for a GEMM item
};

struct BatchRoute {
  BatchStrategy strategy = BatchStrategy::Sequential;  // never Auto
  int lanes = 1;                                       // > 1 only for OuterParallel
  const ProviderDecl* provider = nullptr;
};

enum class RouteErrorKind {
  InvalidProblem,              // negative items/dims, non-finite work
  InvalidPolicy,               // thresholds out of range (Auto passed where a strategy is required...)
  NoCandidates,                // the candidate list is empty
  NoRoute,                     // no candidate supports the strategy (mixed reasons)
  CannotFanOut,                // OuterParallel in a one-thread context or inside a lane
  IndependentRuntimeInFanOut,  // an independent-runtime provider would run inside outer fan-out
  NotConcurrentCallSafe,       // a provider that is not concurrent-call safe would run in lanes
  ProviderNotSequential,       // Sequential with a provider that runs its own threads
  NoPerItemProvider,           // the strategy calls per item, the provider cannot
  NoWholeBatchProvider,        // WholeBatchVendor without a whole-batch provider
  WholeBatchInFanOut,          // WholeBatchVendor inside outer fan-out
  WrongThread,                 // lanes started from a thread that cannot drive the session's pool
  LaneEntryFailed,             // a lane could not enter its child session (poisoned resources)
};
const char* name(RouteErrorKind kind);

struct RouteError {
  RouteErrorKind kind = RouteErrorKind::NoRoute;
  BatchStrategy strategy = BatchStrategy::Auto;  // the effective (requested) strategy
  std::string message;
};

using ProviderCandidates = std::vector<const ProviderDecl*>;

/// The policy in force: per_operation if given, else the session's scoped override, else the
/// backend default.
BatchPolicy effective_batch_policy(const Session& session, const std::optional<BatchPolicy>& per_operation);

/// Resolves the route for `problem` in `context` under an effective policy. Pure: no session needed.
Result<BatchRoute, RouteError> resolve_batch_route(const ExecutionContext& context, const BatchPolicy& policy,
                                                   const BatchProblem& problem,
                                                   const ProviderCandidates& candidates);

/// Resolves the effective policy (per-operation > scoped > backend default) and the route, before
/// any write. Candidates are ordered by preference; the first compatible one is chosen.
Result<BatchRoute, RouteError> resolve_batch_route(const Session& session,
                                                   const std::optional<BatchPolicy>& per_operation,
                                                   const BatchProblem& problem,
                                                   const ProviderCandidates& candidates);

/// Whether `provider` may be called in `context` at all (independent runtimes are rejected inside
/// outer fan-out). Operations call this right before a provider call reached from a lane.
Result<void, RouteError> check_provider_allowed(const ExecutionContext& context,
                                                const ProviderDecl& provider);

}  // namespace tfbench
