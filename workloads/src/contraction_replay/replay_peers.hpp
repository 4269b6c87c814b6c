#pragma once
// The variants of contraction_replay.

#include "contraction_replay/replay_base.hpp"

#include <memory>

namespace tfbench::workloads::contraction_replay {

/// How the engine variants contract (see engine_replay.cpp): einsum each call, einsum planned through
/// the plan cache, or replays prepared at set-up.
enum class ReplayMode { Eager, Cached, Prepared };

std::unique_ptr<Instance> make_engine_replay(const StreamSpec& spec, const RunContext& ctx, ReplayMode mode);
std::unique_ptr<Instance> make_permute_gemm(const StreamSpec& spec, const RunContext& ctx);

}  // namespace tfbench::workloads::contraction_replay
