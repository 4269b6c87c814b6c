#pragma once
// Transitional, not installed: this header moved to the harness (tfbench/harness/build_info.hpp). Only
// harness/src/run/ still includes it by this name; delete it when those includes change.

#include "tfbench/harness/build_info.hpp"
