#pragma once
// Lane plumbing shared by outer fan-out and phases: a lane body type-erased into the .cpp that starts
// the lanes on the context's own OpenMP threads, catches per lane and joins on every path.

#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>

#include "tfbench/engine/exec/impl/function_ref.hpp"
#include "tfbench/engine/exec/session_error.hpp"

namespace tfbench {
class Session;
class PhaseLane;
class OuterLane;
}  // namespace tfbench

namespace tfbench::impl {

struct SessionCore;
class HeldRoot;

/// What a fan-out leaves after every lane joined: one exception (lowest lane that threw) and one
/// session failure (lowest lane whose child entry or cleanup failed).
struct LanesOutcome {
  std::exception_ptr exception;
  std::optional<SessionEntryError> session_error;
};

/// Runs body on `lanes` outer lanes of the session whose core is `root` (joins, then reports).
LanesOutcome run_outer_lanes(Session& root, int lanes, FunctionRef<void(OuterLane&)> body);

/// Runs body on every lane of a held session's phase. body returns false for a lane error.
LanesOutcome run_phase_lanes(HeldRoot& root, FunctionRef<bool(std::size_t, PhaseLane&)> body);

}  // namespace tfbench::impl
