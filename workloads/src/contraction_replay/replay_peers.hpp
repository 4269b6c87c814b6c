#pragma once
// The variants of contraction_replay.

#include "contraction_replay/replay_base.hpp"

#include <memory>

namespace tfbench::workloads::contraction_replay {

std::unique_ptr<Instance> make_permute_gemm(const StreamSpec& spec, const RunContext& ctx);

}  // namespace tfbench::workloads::contraction_replay
