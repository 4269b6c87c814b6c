#pragma once
// Every tensor operation family of the engine (namespace tfbench::ops).

#include "tfbench/engine/ops/contraction_stats.hpp"
#include "tfbench/engine/ops/einsum.hpp"
#include "tfbench/engine/ops/elementwise.hpp"
#include "tfbench/engine/ops/error.hpp"
#include "tfbench/engine/ops/permute.hpp"
#include "tfbench/engine/ops/prepared.hpp"
#include "tfbench/engine/ops/reduce.hpp"
#include "tfbench/engine/ops/tensordot.hpp"
#include "tfbench/engine/ops/transfer.hpp"
