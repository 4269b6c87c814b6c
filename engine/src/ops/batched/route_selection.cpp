// Operand checks, Auto's per-size provider preference and route selection of the batched operations.

#include <algorithm>
#include <limits>
#include <vector>

#include "../../exec/effective_policy.hpp"
#include "facade_support.hpp"
#include "host_providers.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"

namespace tfbench::impl::batched {

Unexpected<BatchedError> rank_error(const char* where, const char* name, std::size_t actual,
                                    std::size_t rank) {
  return fail(BatchedErrc::RankMismatch, where,
              std::string(name) + " has rank " + std::to_string(actual) + ", expected " +
                  std::to_string(rank) + (rank == 3 ? " ([rows, cols, batch])" : " ([rows, cols])"));
}

Unexpected<BatchedError> imaginary_scalar(const char* where, const char* name) {
  return fail(BatchedErrc::InvalidScalar, where,
              std::string(name) + " has an imaginary part for a real dtype");
}

std::optional<BatchedError> check_operands(const Session& session, const char* where, const Operand& first,
                                           const Operand& second, const Operand& third) {
  auto error = [&](BatchedErrc code, std::string message) {
    return std::optional<BatchedError>(BatchedError{code, where, std::move(message), std::nullopt, -1, 0});
  };
  if (session.parked()) {
    return error(BatchedErrc::SessionParked,
                 "the session is a held root parked by a running phase; use the lane's session (PhaseLane::"
                 "session())");
  }
  for (const Operand* x : {&first, &second, &third}) {
    if (x->dtype != first.dtype) {
      return error(BatchedErrc::DTypeMismatch, std::string(x->name) + " is " + name(x->dtype) + " but " +
                                                   first.name + " is " + name(first.dtype));
    }
    if (!reachable(session, x->space)) {
      return error(
          BatchedErrc::SpaceMismatch,
          std::string(x->name) + " lives in " + name(x->space) +
              " memory, which this session's execution space cannot reach (upload or download it first)");
    }
    for (Index e : x->shape) {
      if (e > std::numeric_limits<int>::max()) {
        return error(BatchedErrc::SizeOverflow,
                     std::string(x->name) + " has an extent beyond 2^31 - 1: " + std::to_string(e));
      }
    }
  }
  if (first.dtype != DType::F64 && first.dtype != DType::F32 && first.dtype != DType::C128) {
    return error(BatchedErrc::UnsupportedDType,
                 std::string("dtype ") + name(first.dtype) + " is not supported (f64, f32, c128)");
  }
  return std::nullopt;
}

// Measured on the 2-core Zen 3 (docs/ops-batched.md, "Auto's decision table"): tfbench's specialized
// kernels are the fastest item kernel up to n = 8 in cache (equal to libxsmm at 8), libxsmm from n = 12
// on, and from n = 8 on for batches streaming from memory, where its prefetching kernel is 1.05-1.12x
// the specialized one (which streams its C stores there, and wins at n = 2 and 4); KokkosBatched SerialGemm
// is 0.01-0.3x of either and stays the portable fallback; one BLAS call per item is last (an independent
// runtime, and slow for small items).
int preference_order(ops::BatchedFamily family, bool host_space, DType dtype, Index max_item_dim,
                     bool streaming, ops::Pivoting pivoting, std::array<ops::ItemProvider, 5>& order) {
  using ops::ItemProvider;
  int n = 0;
  auto add = [&](ItemProvider p) { order[n++] = p; };
  if (family == ops::BatchedFamily::Solve) {
    // The specialized pivoting LU is faster than KokkosBatched's non-pivoting one at every n measured,
    // so KokkosBatched is second even when the caller allows it (Pivoting::None).
    add(ItemProvider::Specialized);
    if (pivoting == ops::Pivoting::None) add(ItemProvider::KokkosBatched);
    add(ItemProvider::Blas);
    return n;
  }
  if (!host_space) {
    add(ItemProvider::VendorBatched);
    add(ItemProvider::Specialized);
    add(ItemProvider::KokkosBatched);
    add(ItemProvider::Blas);
    return n;
  }
  const bool xsmm_first = dtype != DType::C128 && (max_item_dim >= 12 || (streaming && max_item_dim >= 8));
  if (xsmm_first) add(ItemProvider::Libxsmm);
  add(ItemProvider::Specialized);
  if (!xsmm_first) add(ItemProvider::Libxsmm);
  add(ItemProvider::KokkosBatched);
  add(ItemProvider::Blas);
  return n;
}

namespace {

ProviderSlot slot_of(ops::BatchedFamily family) {
  return family == ops::BatchedFamily::Solve ? ProviderSlot::BatchedSolve : ProviderSlot::BatchedGemm;
}

/// Whether the session's provider set allows `p` (tfbench's own kernels are always allowed).
bool allowed(const Session& session, ops::BatchedFamily family, ops::ItemProvider p) {
  if (p == ops::ItemProvider::Specialized) return true;
  const ProviderDecl* decl = &ops::declaration(p, family);
  const auto& slot = session.providers().candidates(slot_of(family));
  return std::find(slot.begin(), slot.end(), decl) != slot.end();
}

/// The built-in rule for streaming stores of C: the specialized kernel's for batches beyond the L2
/// cache (`streaming`), libxsmm's never (its plain kernel was the only one before they were measured).
bool builtin_stream_c(ops::ItemProvider provider, bool streaming) {
  return provider == ops::ItemProvider::Specialized && streaming;
}

/// Whether `route` is a fan-out Auto chose (not one the policy forces) that the fan-out check may
/// withhold: unless the thresholds turn the check off.
bool checked_fan_out(const BatchPolicy& policy, const BatchRoute& route) {
  return policy.strategy == BatchStrategy::Auto && policy.thresholds.check_fan_out &&
         route.strategy == BatchStrategy::OuterParallel && route.lanes > 1;
}

/// The tuning's choice for the problem's class, if one applies and can run here: its provider with
/// its strategy, else with Auto's fan-out for that provider (a strategy measured outside a lane cannot
/// fan out inside one). Empty: the built-in preference decides.
std::optional<SelectedRoute> tuned_route(const Session& session, const BatchPolicy& policy,
                                         const ops::BatchedOptions& options, ops::BatchedFamily family,
                                         const BatchProblem& problem, DType dtype, bool streaming,
                                         double working_set_bytes, ApplicableFn applicable,
                                         ProviderCandidates& candidates) {
  const auto choice = policy.tuning->lookup(family, dtype, static_cast<int>(problem.max_item_dim),
                                            working_set_bytes, session.context().threads);
  if (!choice) return std::nullopt;
  const ops::ItemProvider p = choice->provider;
  const bool needs_no_pivoting = family == ops::BatchedFamily::Solve && p == ops::ItemProvider::KokkosBatched;
  if (needs_no_pivoting && options.pivoting != ops::Pivoting::None) return std::nullopt;
  if (!allowed(session, family, p) || !applicable(p)) return std::nullopt;
  candidates.clear();
  candidates.push_back(&ops::declaration(p, family));
  // The policy's thresholds without its tuning, built rather than copied: a copy would copy the
  // tuning's shared_ptr (two atomic read-modify-writes on every tuned call).
  BatchPolicy chosen;
  chosen.thresholds = policy.thresholds;
  for (BatchStrategy strategy : {choice->strategy.value_or(BatchStrategy::Auto), BatchStrategy::Auto}) {
    chosen.strategy = strategy;
    if (auto route = resolve_batch_route(session.context(), chosen, problem, candidates))
      return SelectedRoute{*route,
                           p,
                           true,
                           options.prefetch.value_or(choice->prefetch.value_or(streaming)),
                           options.streaming_stores.value_or(
                               choice->streaming_stores.value_or(builtin_stream_c(p, streaming))),
                           checked_fan_out(policy, *route),
                           options.narrow_vectors.value_or(choice->narrow_vectors.value_or(false))};
  }
  return std::nullopt;
}

}  // namespace

Result<SelectedRoute, BatchedError> select_route(const Session& session, const ops::BatchedOptions& options,
                                                 ops::BatchedFamily family, const BatchProblem& problem,
                                                 bool host_space, DType dtype, bool streaming,
                                                 double working_set_bytes, ApplicableFn applicable,
                                                 const char* where) {
  const BatchPolicy& policy = effective_policy_ref(session, options.policy);
  // Reused per thread: no allocation on the per-call path.
  thread_local ProviderCandidates candidates;
  if (!options.provider && policy.strategy == BatchStrategy::Auto && policy.tuning && host_space) {
    if (auto tuned = tuned_route(session, policy, options, family, problem, dtype, streaming,
                                 working_set_bytes, applicable, candidates))
      return *tuned;
  }
  candidates.clear();
  if (options.provider) {
    const ops::ItemProvider p = *options.provider;
    if (family == ops::BatchedFamily::Solve && p == ops::ItemProvider::KokkosBatched &&
        options.pivoting != ops::Pivoting::None) {
      return fail(
          BatchedErrc::Unsupported, where,
          "kokkosbatched's SerialLU does not pivot: it is selectable only with Pivoting::None (the caller "
          "declares that the matrices need no row exchanges)");
    }
    if (!allowed(session, family, p)) {
      return fail(BatchedErrc::Unsupported, where,
                  std::string("provider ") + ops::name(p) + " is not in this session's provider set");
    }
    if (!applicable(p)) {
      return fail(BatchedErrc::Unsupported, where,
                  std::string("provider ") + ops::name(p) +
                      " cannot compute this operation (element type, layout, alpha/beta or execution space)");
    }
    candidates.push_back(&ops::declaration(p, family));
  } else {
    std::array<ops::ItemProvider, 5> order{};
    const int n =
        preference_order(family, host_space, dtype, problem.max_item_dim, streaming, options.pivoting, order);
    for (int i = 0; i < n; ++i) {
      const ops::ItemProvider p = order[i];
      if (!allowed(session, family, p) || !applicable(p)) continue;
      const ProviderDecl& decl = ops::declaration(p, family);
      // ProviderItems means provider-managed items: a provider that may run its own threads.
      if (policy.strategy == BatchStrategy::ProviderItems &&
          decl.parallelism == ProviderParallelism::Sequential)
        continue;
      candidates.push_back(&decl);
      // For Auto, Sequential and OuterParallel the resolver takes the first candidate that is sequential,
      // concurrent-call safe and per item whatever the context: later candidates can never be chosen,
      // so their applicability (a libxsmm dispatch lookup, say) is not even checked.
      const bool universal =
          decl.parallelism == ProviderParallelism::Sequential && decl.concurrent_call_safe && decl.per_item;
      if (universal &&
          (policy.strategy == BatchStrategy::Auto || policy.strategy == BatchStrategy::Sequential ||
           policy.strategy == BatchStrategy::OuterParallel))
        break;
    }
  }
  auto route = resolve_batch_route(session.context(), policy, problem, candidates);
  if (!route) {
    BatchedError e{BatchedErrc::NoRoute, where, route.error().message, route.error(), -1, 0};
    return unexpected(std::move(e));
  }
  const ops::ItemProvider provider =
      ops::item_provider_of(route->provider).value_or(ops::ItemProvider::Specialized);
  return SelectedRoute{*route,
                       provider,
                       false,
                       options.prefetch.value_or(streaming),
                       options.streaming_stores.value_or(builtin_stream_c(provider, streaming)),
                       checked_fan_out(policy, *route),
                       options.narrow_vectors.value_or(false)};
}

}  // namespace tfbench::impl::batched
