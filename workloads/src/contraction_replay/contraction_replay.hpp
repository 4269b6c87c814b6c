#pragma once
// contraction_replay: binary and N-ary contractions whose shapes and layouts change from call to
// call, driven by key streams (fixed, mixed, fresh): the engine's eager einsum, einsums planned
// through the plan cache, and prepared replays, against raw GEMM after a manual permute.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& contraction_replay_family();

}  // namespace tfbench::workloads
