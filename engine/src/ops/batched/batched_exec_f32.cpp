// Batched GEMM and solve route executors for float.

#include "batched_exec_instantiate.hpp"

namespace tfbench::impl::batched {
TFBENCH_BATCHED_INSTANTIATE(float)
}  // namespace tfbench::impl::batched
