#pragma once
// Typed admission failures of session entry. Every one is reported before the callback runs;
// the callback's own result is never flattened into them.

#include <string>

namespace tfbench {

enum class SessionEntryErrorKind {
  /// This thread already holds a session, a held session or a lane of one: entering again could wait
  /// while holding a permit, so it is rejected instead (never a deadlock).
  Reentered,
  /// A caller-managed domain (it has no queue) is busy with another session.
  Contended,
  /// The calling thread's execution context cannot drive this backend, e.g. it is inside an active
  /// OpenMP parallel region and the backend's kernels would fork the pool again.
  IncompatibleContext,
  /// The backend's resources (or the arbiter) were poisoned by an unrecoverable failure.
  ResourcePoisoned,
  /// The executor cannot be entered: Kokkos is not initialized, or a Kokkos 3.4 OpenMP pool is driven
  /// from a thread other than the one that initialized Kokkos.
  Executor,
};

/// "reentered", "contended", "incompatible-context", "resource-poisoned" or "executor".
const char* name(SessionEntryErrorKind kind);

struct SessionEntryError {
  SessionEntryErrorKind kind = SessionEntryErrorKind::Executor;
  std::string message;  // where and why, for people
};

}  // namespace tfbench
