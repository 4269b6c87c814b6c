#pragma once
// effective_batch_policy without the copy, for the per-call paths inside the engine: copying a
// BatchPolicy copies its tuning's shared_ptr, two atomic read-modify-writes per batched call.

#include <optional>

#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench::impl {

/// The policy effective_batch_policy returns, by reference: valid while `session` and
/// `per_operation` are.
inline const BatchPolicy& effective_policy_ref(const Session& session,
                                               const std::optional<BatchPolicy>& per_operation) {
  if (per_operation) return *per_operation;
  if (session.scoped_batch_policy()) return *session.scoped_batch_policy();
  return session.backend_batch_policy();
}

}  // namespace tfbench::impl
