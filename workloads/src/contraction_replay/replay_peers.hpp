#pragma once
// The variants of contraction_replay.

#include "contraction_replay/replay_base.hpp"

#include <memory>

namespace tfbench::workloads::contraction_replay {

/// "engine:eager", "engine:cached" or "engine:prepared" (see engine_replay.cpp).
std::unique_ptr<Instance> make_engine_replay(const StreamSpec& spec, const RunContext& ctx,
                                             const std::string& variant);
std::unique_ptr<Instance> make_permute_gemm(const StreamSpec& spec, const RunContext& ctx);

}  // namespace tfbench::workloads::contraction_replay
