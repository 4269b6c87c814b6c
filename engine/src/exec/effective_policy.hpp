#pragma once
// effective_batch_policy without the copy, for the per-call paths inside the engine: copying a
// BatchPolicy copies its tuning's shared_ptr, two atomic read-modify-writes per batched call.

#include <optional>

#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench::impl {

/// The session's policy with no per-operation one (scoped, else the backend's), by reference: valid
/// while `session` is. Its own function, not the one below with std::nullopt: that would bind a
/// temporary optional, which GCC then warns may dangle (-Wdangling-pointer, the CUDA build's host pass).
inline const BatchPolicy& effective_policy_ref(const Session& session) {
  if (session.scoped_batch_policy()) return *session.scoped_batch_policy();
  return session.backend_batch_policy();
}

/// The policy effective_batch_policy returns, by reference: valid while `session` and
/// `per_operation` are.
inline const BatchPolicy& effective_policy_ref(const Session& session,
                                               const std::optional<BatchPolicy>& per_operation) {
  return per_operation ? *per_operation : effective_policy_ref(session);
}

}  // namespace tfbench::impl
