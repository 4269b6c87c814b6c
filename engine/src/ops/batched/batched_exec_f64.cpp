// Batched GEMM and solve route executors for double.

#include "batched_exec_instantiate.hpp"

namespace tfbench::impl::batched {
TFBENCH_BATCHED_INSTANTIATE(double)
}  // namespace tfbench::impl::batched
