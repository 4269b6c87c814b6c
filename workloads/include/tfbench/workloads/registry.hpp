#pragma once
// Every workload family compiled into tfbench, by name.

#include "tfbench/workloads/ceilings.hpp"  // measure_ceilings, for the harness
#include "tfbench/workloads/family.hpp"

#include <string_view>
#include <vector>

namespace tfbench::workloads {

/// All families, in the order `tfbench info` and the docs list them.
const std::vector<const Family*>& families();
/// The family called `name`, or nullptr.
const Family* find_family(std::string_view name);

}  // namespace tfbench::workloads
