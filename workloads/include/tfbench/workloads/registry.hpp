#pragma once
// Every workload family compiled into tfbench, by name.

#include "tfbench/workloads/family.hpp"

#include <string_view>
#include <vector>

namespace tfbench::workloads {

/// All families, in the order `tfbench info` and the docs list them.
const std::vector<const Family*>& families();
/// The family called `name`, or nullptr.
const Family* find_family(std::string_view name);

/// Machine ceilings measured by the two control families at the worker's thread budget; every
/// result row is also reported as a fraction of them.
struct Ceilings {
  double gflops = 0.0;  // compute control: large GEMM through OpenBLAS
  double gbs = 0.0;     // bandwidth control: hand-written OpenMP triad
};
Ceilings measure_ceilings(const RunContext& ctx);

}  // namespace tfbench::workloads
