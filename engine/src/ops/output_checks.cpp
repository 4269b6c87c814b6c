// Checks of the typed facades against the session (kept apart from the facade header's templates).

#include <string>

#include "../exec/effective_policy.hpp"
#include "tfbench/engine/exec/providers.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"
#include "tfbench/engine/ops/error.hpp"
#include "tfbench/engine/ops/impl/contraction_plan.hpp"

namespace tfbench::impl {

// Declared in ops/impl/facade.hpp (both).
void check_output_memory(const char* where, const Session& s, bool want_host, bool want_device) {
  const MemoryKind m = s.context().memory;
  if ((want_host && m != MemoryKind::Host) || (want_device && m != MemoryKind::Device))
    throw ops::OpError(ops::OpErrorCode::SpaceMismatch, where,
                       std::string("the operands are ") + (want_host ? "Host" : "Device") +
                           " tensors but the session writes " + name(m) +
                           " memory (pass Dynamic operands, or use a backend of that memory)");
}

void throw_session_parked() {
  throw ops::OpError(ops::OpErrorCode::SessionParked, "ops",
                     "the session is a held root parked by a running phase; use the lane's session "
                     "(PhaseLane::session())");
}

}  // namespace tfbench::impl

namespace tfbench::impl {

double direct_contraction_muladds(const Session& s) {
  const BatchPolicy& policy = effective_policy_ref(s);
  if (policy.thresholds.direct_contraction_muladds) return *policy.thresholds.direct_contraction_muladds;
  if (policy.tuning) {
    if (auto measured = policy.tuning->direct_contraction_muladds(s.context().threads)) return *measured;
  }
  return static_cast<double>(kDirectItemWork);
}

bool contraction_uses_blas(const Session& s, const char* where) {
  const bool fan_out = s.context().outer_active;
  std::string rejected;
  for (const ProviderDecl* p : s.providers().candidates(ProviderSlot::Contraction)) {
    if (p->parallelism == ProviderParallelism::IndependentRuntime) {
      if (!fan_out) return true;
      rejected += std::string(rejected.empty() ? "" : ", ") + std::string(p->name);
      continue;
    }
    // A same-pool/sequential candidate: on a device space KokkosBlas::gemm is a kernel of that space
    // (or its vendor TPL) and stays allowed; on a host space it would reach the threaded BLAS TPL,
    // so GEMM-sized steps run the direct kernel instead.
    return !is_host_space(s.space());
  }
  throw ops::OpError(
      ops::OpErrorCode::Unsupported, where,
      fan_out ? "no contraction provider may run inside outer fan-out (" + rejected + " runs its own threads)"
              : std::string("the session's Contraction provider slot is empty"));
}

}  // namespace tfbench::impl
