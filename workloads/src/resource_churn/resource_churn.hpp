#pragma once
// resource_churn: repeated output checkout / publish / release at changing sizes. The engine's
// session output leases (drawn from the backend's pool, published as pooled tensors) against a plain
// allocation per output; pool hit rate, allocations per operation and bytes retained.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& resource_churn_family();

}  // namespace tfbench::workloads
