// Batched GEMM and solve route executors for Kokkos::complex<double>.

#include "batched_exec_instantiate.hpp"

namespace tfbench::impl::batched {
TFBENCH_BATCHED_INSTANTIATE(Kokkos::complex<double>)
}  // namespace tfbench::impl::batched
