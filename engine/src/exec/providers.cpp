// Provider declarations and sets: how each implementation behaves under outer fan-out.

#include "tfbench/engine/exec/providers.hpp"

#include <KokkosKernels_config.h>

#include <algorithm>
#include <atomic>

namespace tfbench {

namespace {
std::uint64_t fresh_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
}  // namespace

ProviderSet::ProviderSet() : generation_(fresh_generation()) {}

void ProviderSet::set(ProviderSlot slot, std::vector<const ProviderDecl*> candidates) {
  candidates.erase(std::remove(candidates.begin(), candidates.end(), nullptr), candidates.end());
  slots_[static_cast<int>(slot)] = std::move(candidates);
  generation_ = fresh_generation();
}

namespace providers {
const ProviderDecl kokkos_batched_serial{"kokkos-batched-serial", ProviderParallelism::Sequential, true, true,
                                         false};
const ProviderDecl kokkos_same_pool{"kokkos-same-pool", ProviderParallelism::SamePool, true, true, false};
const ProviderDecl openblas{"openblas", ProviderParallelism::IndependentRuntime, true, true, false};
const ProviderDecl lapack{"lapack", ProviderParallelism::IndependentRuntime, true, true, false};
// A call through the dispatched kernel pointer: about 4 ns per item here beyond its multiply-adds.
const ProviderDecl libxsmm{"libxsmm", ProviderParallelism::Sequential, true, true, false, 4};
const ProviderDecl vendor_batched{"vendor-batched", ProviderParallelism::IndependentRuntime, true, false,
                                  true};
}  // namespace providers

ProviderSet default_provider_set(ExecSpaceKind space) {
  ProviderSet set;
  if (is_host_space(space)) {
    set.set(ProviderSlot::Gemm, {&providers::openblas});  // KokkosBlas::gemm's BLAS TPL
    // libxsmm (host builds that have it): the batched operations use it where they measured it fastest.
#if defined(TFBENCH_HAVE_LIBXSMM)
    set.set(ProviderSlot::BatchedGemm,
            {&providers::kokkos_batched_serial, &providers::openblas, &providers::libxsmm});
#else
    set.set(ProviderSlot::BatchedGemm, {&providers::kokkos_batched_serial, &providers::openblas});
#endif
    set.set(ProviderSlot::BatchedSolve, {&providers::kokkos_batched_serial, &providers::lapack});
    set.set(ProviderSlot::Contraction, {&providers::openblas, &providers::kokkos_same_pool});
  } else {
    set.set(ProviderSlot::Gemm, {&providers::kokkos_same_pool});  // KokkosBlas::gemm in the space
    // cuBLAS's strided-batched gemm is the whole-batch candidate (WholeBatchVendor) where Kokkos
    // Kernels was built with it; the per-item kernels stay the fallback for larger items.
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
    set.set(ProviderSlot::BatchedGemm,
            {&providers::vendor_batched, &providers::kokkos_batched_serial, &providers::kokkos_same_pool});
#else
    set.set(ProviderSlot::BatchedGemm, {&providers::kokkos_batched_serial, &providers::kokkos_same_pool});
#endif
    set.set(ProviderSlot::BatchedSolve, {&providers::kokkos_batched_serial});
    set.set(ProviderSlot::Contraction, {&providers::kokkos_same_pool});
  }
  return set;
}

}  // namespace tfbench
