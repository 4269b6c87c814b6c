#pragma once
// Eager reverse-mode AD of the engine (namespace tfbench::ad).

#include "tfbench/engine/ad/backward.hpp"
#include "tfbench/engine/ad/mode.hpp"
#include "tfbench/engine/ad/ops.hpp"
#include "tfbench/engine/ad/var.hpp"
