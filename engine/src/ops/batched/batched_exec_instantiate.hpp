#pragma once
// Explicit instantiation of the batched route executors for one element type on every enabled
// execution space (one translation unit per element type keeps each compile small).

#include "batched_exec_impl.hpp"

#define TFBENCH_BATCHED_INSTANTIATE_SPACE(Space, T)                                               \
  template bool gemm_provider_applies<Space, T>(ops::ItemProvider, const GemmBatch<T>&);          \
  template bool solve_provider_applies<Space, T>(ops::ItemProvider, const SolveBatch<T>&);        \
  template LanesRan execute_gemm<Space, T>(const Space&, const ItemsRoute&, const GemmBatch<T>&); \
  template SolveRan execute_solve<Space, T>(const Space&, const ItemsRoute&, const SolveBatch<T>&);

#if defined(KOKKOS_ENABLE_SERIAL)
#define TFBENCH_BATCHED_INSTANTIATE_SERIAL(T) TFBENCH_BATCHED_INSTANTIATE_SPACE(Kokkos::Serial, T)
#else
#define TFBENCH_BATCHED_INSTANTIATE_SERIAL(T)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define TFBENCH_BATCHED_INSTANTIATE_OPENMP(T) TFBENCH_BATCHED_INSTANTIATE_SPACE(Kokkos::OpenMP, T)
#else
#define TFBENCH_BATCHED_INSTANTIATE_OPENMP(T)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define TFBENCH_BATCHED_INSTANTIATE_CUDA(T) TFBENCH_BATCHED_INSTANTIATE_SPACE(Kokkos::Cuda, T)
#else
#define TFBENCH_BATCHED_INSTANTIATE_CUDA(T)
#endif

#define TFBENCH_BATCHED_INSTANTIATE(T)                                   \
  template bool streams_c_on<T>(ops::ItemProvider, const GemmBatch<T>&); \
  TFBENCH_BATCHED_INSTANTIATE_SERIAL(T)                                  \
  TFBENCH_BATCHED_INSTANTIATE_OPENMP(T)                                  \
  TFBENCH_BATCHED_INSTANTIATE_CUDA(T)
