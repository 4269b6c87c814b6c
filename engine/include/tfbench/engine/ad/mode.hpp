#pragma once
// no_grad: while a NoGradGuard lives on a thread, AD operations on that thread record nothing (their
// results are untracked). The depth is a per-thread mode (core/thread_modes.hpp) that session
// callbacks carry: a callback sees its caller's depth, also on a lane's worker thread; a guard opened
// inside a callback stays local to it.

#include "tfbench/engine/core/thread_modes.hpp"

namespace tfbench::ad {

/// True when AD operations on this thread record (no NoGradGuard is open).
inline bool grad_enabled() noexcept {
  return thread_modes().no_grad_depth == 0;
}

class NoGradGuard {
 public:
  NoGradGuard() noexcept { ++thread_modes().no_grad_depth; }
  ~NoGradGuard() { --thread_modes().no_grad_depth; }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
};

}  // namespace tfbench::ad
