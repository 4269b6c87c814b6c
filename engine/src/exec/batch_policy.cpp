// Batch route resolution: effective policy, thresholds, lane cost model, provider rules.

#include "tfbench/engine/exec/batch_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "effective_policy.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench {

namespace {

struct Conflict {
  RouteErrorKind kind;
  std::string why;
};

std::string provider_name(const ProviderDecl& p) {
  return std::string(p.name.empty() ? "<unnamed provider>" : p.name);
}

// Why `p` cannot serve `strategy` in `context`; none when it can. Runs on every batched call: the
// provider's name is only spelled out when there is a conflict to explain.
std::optional<Conflict> conflict(BatchStrategy strategy, const ProviderDecl& p,
                                 const ExecutionContext& context) {
  const auto who = [&p] { return provider_name(p); };
  const bool independent = p.parallelism == ProviderParallelism::IndependentRuntime;
  switch (strategy) {
    case BatchStrategy::Auto:
      break;
    case BatchStrategy::Sequential:
      if (!p.per_item)
        return Conflict{RouteErrorKind::NoPerItemProvider, who() + " cannot run one item per call"};
      if (independent) {
        return Conflict{RouteErrorKind::ProviderNotSequential,
                        who() + " runs its own threads; tfbench cannot make its items sequential"};
      }
      if (context.outer_active && !p.concurrent_call_safe) {
        return Conflict{RouteErrorKind::NotConcurrentCallSafe,
                        who() + " is not concurrent-call safe inside lanes"};
      }
      return std::nullopt;
    case BatchStrategy::OuterParallel:
      if (!p.per_item)
        return Conflict{RouteErrorKind::NoPerItemProvider, who() + " cannot run one item per call"};
      if (independent) {
        return Conflict{RouteErrorKind::IndependentRuntimeInFanOut,
                        who() + " is an independent runtime; it cannot run inside outer fan-out"};
      }
      if (!p.concurrent_call_safe) {
        return Conflict{RouteErrorKind::NotConcurrentCallSafe, who() + " is not concurrent-call safe"};
      }
      return std::nullopt;
    case BatchStrategy::ProviderItems:
      if (!p.per_item)
        return Conflict{RouteErrorKind::NoPerItemProvider, who() + " cannot run one item per call"};
      if (context.outer_active && independent) {
        return Conflict{RouteErrorKind::IndependentRuntimeInFanOut,
                        who() + " is an independent runtime and this context is an outer fan-out lane"};
      }
      if (context.outer_active && !p.concurrent_call_safe) {
        return Conflict{RouteErrorKind::NotConcurrentCallSafe,
                        who() + " is not concurrent-call safe inside lanes"};
      }
      return std::nullopt;
    case BatchStrategy::WholeBatchVendor:
      if (!p.whole_batch)
        return Conflict{RouteErrorKind::NoWholeBatchProvider, who() + " has no whole-batch call"};
      if (context.outer_active) {
        return Conflict{RouteErrorKind::WholeBatchInFanOut,
                        who() + ": a whole-batch vendor call cannot run inside outer fan-out"};
      }
      return std::nullopt;
  }
  return std::nullopt;
}

bool finite_nonneg(double v) {
  return std::isfinite(v) && v >= 0;
}

std::optional<RouteError> validate(const BatchPolicy& policy, const BatchProblem& problem) {
  const auto& t = policy.thresholds;
  if (problem.items < 0 || problem.max_item_dim < 0 || !finite_nonneg(problem.muladds_per_item)) {
    return RouteError{
        RouteErrorKind::InvalidProblem, policy.strategy,
        "batch route: items, max_item_dim and muladds_per_item must be finite and >= 0 (items " +
            std::to_string(problem.items) + ", max_item_dim " + std::to_string(problem.max_item_dim) +
            ", muladds_per_item " + std::to_string(problem.muladds_per_item) + ")"};
  }
  if (t.vendor_batch_max_item_dim < 0 || t.outer_min_items < 1 || t.outer_min_items_per_lane < 1 ||
      (t.lane_item_overhead_ns && !finite_nonneg(*t.lane_item_overhead_ns)) ||
      !std::isfinite(t.lane_muladds_per_ns) || t.lane_muladds_per_ns <= 0 ||
      !finite_nonneg(t.lane_min_work_ns) ||
      (t.direct_contraction_muladds && !finite_nonneg(*t.direct_contraction_muladds))) {
    return RouteError{
        RouteErrorKind::InvalidPolicy, policy.strategy,
        "batch route: thresholds out of range (vendor_batch_max_item_dim >= 0, outer_min_items >= 1, "
        "outer_min_items_per_lane >= 1, lane_item_overhead_ns >= 0, lane_muladds_per_ns > 0, "
        "lane_min_work_ns >= 0, direct_contraction_muladds >= 0)"};
  }
  return std::nullopt;
}

RouteError no_route(BatchStrategy strategy, const std::vector<Conflict>& reasons) {
  RouteErrorKind kind = reasons.empty() ? RouteErrorKind::NoRoute : reasons.front().kind;
  std::string message = std::string("batch route: no provider supports ") + name(strategy) + ":";
  for (const auto& r : reasons) {
    if (r.kind != kind) kind = RouteErrorKind::NoRoute;
    message += " " + r.why + ";";
  }
  return RouteError{kind, strategy, std::move(message)};
}

/// The per-item overhead of the cost model for `provider`: the policy's if set, else the provider's
/// declaration, else kDefaultLaneItemOverheadNs.
double item_overhead_ns(const BatchThresholds& t, const ProviderDecl& provider) {
  if (t.lane_item_overhead_ns) return *t.lane_item_overhead_ns;
  return provider.item_overhead_ns >= 0 ? provider.item_overhead_ns : kDefaultLaneItemOverheadNs;
}

// Lanes the cost model gives a batch on `provider`: each lane needs outer_min_items_per_lane items
// and lane_min_work_ns of estimated work (overhead_ns + muladds / muladds_per_ns per item).
std::int64_t cost_model_lanes(const ExecutionContext& context, const BatchThresholds& t,
                              const BatchProblem& problem, const ProviderDecl& provider) {
  if (!context.can_fan_out() || problem.items < t.outer_min_items) return 1;
  const double item_ns = item_overhead_ns(t, provider) + problem.muladds_per_item / t.lane_muladds_per_ns;
  const double total_ns = item_ns * static_cast<double>(problem.items);
  const std::int64_t by_items = problem.items / t.outer_min_items_per_lane;
  const double by_work = t.lane_min_work_ns > 0 ? std::floor(total_ns / t.lane_min_work_ns)
                                                : std::numeric_limits<double>::infinity();
  double lanes = std::min<double>(context.threads, static_cast<double>(by_items));
  lanes = std::min(lanes, by_work);
  return lanes < 1 ? 1 : static_cast<std::int64_t>(lanes);
}

}  // namespace

BatchPolicy effective_batch_policy(const Session& session, const std::optional<BatchPolicy>& per_operation) {
  return impl::effective_policy_ref(session, per_operation);
}

Result<BatchRoute, RouteError> resolve_batch_route(const ExecutionContext& context, const BatchPolicy& policy,
                                                   const BatchProblem& problem,
                                                   const ProviderCandidates& candidates) {
  if (auto invalid = validate(policy, problem)) return unexpected(std::move(*invalid));
  const bool any = std::any_of(candidates.begin(), candidates.end(), [](const ProviderDecl* p) { return p; });
  if (!any) {
    return unexpected(
        RouteError{RouteErrorKind::NoCandidates, policy.strategy, "batch route: no provider candidates"});
  }
  std::vector<Conflict> reasons;
  const BatchStrategy forced = policy.strategy;

  if (forced != BatchStrategy::Auto) {
    int lanes = 1;
    if (forced == BatchStrategy::OuterParallel) {
      if (!context.can_fan_out()) {
        return unexpected(RouteError{RouteErrorKind::CannotFanOut, forced,
                                     context.outer_active
                                         ? "batch route: OuterParallel forced inside an outer fan-out lane "
                                           "(fan-out never widens in a lane)"
                                         : "batch route: OuterParallel forced in a one-thread context"});
      }
      lanes =
          static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(context.threads, problem.items)));
    }
    for (const ProviderDecl* p : candidates) {
      if (!p) continue;
      auto c = conflict(forced, *p, context);
      if (!c) return BatchRoute{forced, lanes, p};
      reasons.push_back(std::move(*c));
    }
    return unexpected(no_route(forced, reasons));
  }

  const auto& t = policy.thresholds;
  // Fan out with the first candidate that may run in lanes, if the cost model gives its items two
  // lanes or more.
  for (const ProviderDecl* p : candidates) {
    if (!p || conflict(BatchStrategy::OuterParallel, *p, context)) continue;
    const std::int64_t lanes = cost_model_lanes(context, t, problem, *p);
    if (lanes >= 2) return BatchRoute{BatchStrategy::OuterParallel, static_cast<int>(lanes), p};
    break;
  }
  for (const ProviderDecl* p : candidates) {
    if (!p) continue;
    if (p->whole_batch && !context.outer_active && problem.max_item_dim <= t.vendor_batch_max_item_dim) {
      return BatchRoute{BatchStrategy::WholeBatchVendor, 1, p};
    }
    if (p->parallelism == ProviderParallelism::Sequential) {
      auto c = conflict(BatchStrategy::Sequential, *p, context);
      if (!c) return BatchRoute{BatchStrategy::Sequential, 1, p};
      reasons.push_back(std::move(*c));
      continue;
    }
    auto c = conflict(BatchStrategy::ProviderItems, *p, context);
    if (!c) return BatchRoute{BatchStrategy::ProviderItems, 1, p};
    reasons.push_back(std::move(*c));
  }
  return unexpected(no_route(BatchStrategy::Auto, reasons));
}

Result<BatchRoute, RouteError> resolve_batch_route(const Session& session,
                                                   const std::optional<BatchPolicy>& per_operation,
                                                   const BatchProblem& problem,
                                                   const ProviderCandidates& candidates) {
  return resolve_batch_route(session.context(), effective_batch_policy(session, per_operation), problem,
                             candidates);
}

Result<void, RouteError> check_provider_allowed(const ExecutionContext& context,
                                                const ProviderDecl& provider) {
  if (!context.outer_active) return {};
  const std::string who = provider_name(provider);
  if (provider.parallelism == ProviderParallelism::IndependentRuntime) {
    return unexpected(RouteError{RouteErrorKind::IndependentRuntimeInFanOut, BatchStrategy::Auto,
                                 who + " is an independent runtime (it runs its own threads); it cannot be "
                                       "called inside outer fan-out"});
  }
  if (!provider.concurrent_call_safe) {
    return unexpected(
        RouteError{RouteErrorKind::NotConcurrentCallSafe, BatchStrategy::Auto,
                   who + " is not concurrent-call safe; it cannot be called inside outer fan-out"});
  }
  return {};
}

bool BatchThresholds::operator==(const BatchThresholds& o) const {
  return vendor_batch_max_item_dim == o.vendor_batch_max_item_dim && outer_min_items == o.outer_min_items &&
         outer_min_items_per_lane == o.outer_min_items_per_lane &&
         lane_item_overhead_ns == o.lane_item_overhead_ns && lane_muladds_per_ns == o.lane_muladds_per_ns &&
         lane_min_work_ns == o.lane_min_work_ns &&
         direct_contraction_muladds == o.direct_contraction_muladds && check_fan_out == o.check_fan_out;
}

}  // namespace tfbench
