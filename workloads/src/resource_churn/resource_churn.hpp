#pragma once
// resource_churn: repeated output checkout / publish / release at changing sizes. The engine's
// pooled outputs (a DevicePool behind Tensor::zeros) against plain engine allocations and plain
// Kokkos View allocations; pool hit rate, allocations per operation and bytes retained.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& resource_churn_family();

}  // namespace tfbench::workloads
