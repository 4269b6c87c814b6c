#pragma once
// Read-only view of the permit arbiter, for the engine's exec tests (private to engine/src).

#include <cstddef>

namespace tfbench::impl {

/// Permits granted now, and requests waiting in the FIFO queue.
std::size_t arbiter_granted();
std::size_t arbiter_waiting();

}  // namespace tfbench::impl
