// Checks of the typed facades against the session (kept apart from the facade header's templates).

#include <string>

#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/error.hpp"

namespace tfbench::impl {

// Declared in ops/impl/facade.hpp.
void check_output_memory(const char* where, const Session& s, bool want_host, bool want_device) {
  const MemoryKind m = s.context().memory;
  if ((want_host && m != MemoryKind::Host) || (want_device && m != MemoryKind::Device))
    throw ops::OpError(ops::OpErrorCode::SpaceMismatch, where,
                       std::string("the operands are ") + (want_host ? "Host" : "Device") +
                           " tensors but the session writes " + name(m) +
                           " memory (pass Dynamic operands, or use a backend of that memory)");
}

}  // namespace tfbench::impl
