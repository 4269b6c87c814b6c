#pragma once
// The item providers of batched GEMM and batched solve: who computes one item (or the whole batch).
// Each has a declaration in the exec concern's terms (ProviderDecl) that the route resolver checks.

#include <optional>
#include <string_view>

#include "tfbench/engine/exec/providers.hpp"

namespace tfbench::ops {

enum class ItemProvider {
  Specialized,    // tfbench's size-specialized kernels (portable; compile-time sizes + runtime fallback)
  Libxsmm,        // one libxsmm kernel dispatched per shape, called per item (host, double/float)
  KokkosBatched,  // KokkosBatched::Serial* per item (portable)
  Blas,           // one BLAS/LAPACK call per item (threaded OpenBLAS on host: an independent runtime)
  VendorBatched,  // one whole-batch vendor call (cuBLAS strided batched on CUDA; none on host)
};

/// "specialized", "libxsmm", "kokkosbatched", "blas", "vendor_batched".
const char* name(ItemProvider provider);
/// Parses a name as printed by name(); empty when unknown.
std::optional<ItemProvider> parse_item_provider(std::string_view text);

/// Which operation family a provider serves: the BLAS provider is OpenBLAS gemm for GEMM and LAPACK
/// getrf/getrs for solve (both independent runtimes: threaded OpenBLAS).
enum class BatchedFamily { Gemm, Solve };

namespace providers {
/// tfbench's own size-specialized kernels: sequential, concurrent-call safe, one item per call.
/// Declared item cost 2 ns (an inline GEMM item).
extern const ProviderDecl specialized;
/// The same kernels' LU + solve items: no declared item cost (the policy's default applies). Their
/// time goes to pivoting and divisions that the cost model's GEMM rate (lane_muladds_per_ns) does
/// not see: 512 items of n = 8 take about 120 us, the model's GEMM rate would say 9 us.
extern const ProviderDecl specialized_solve;
}  // namespace providers

/// The declaration the route resolver checks for `provider`:
///   specialized     ops::providers::specialized(_solve)  Sequential, concurrent-call safe, per item
///   libxsmm         tfbench::providers::libxsmm               Sequential, concurrent-call safe, per item
///   kokkosbatched   tfbench::providers::kokkos_batched_serial Sequential, concurrent-call safe, per item
///   blas            tfbench::providers::openblas / lapack     IndependentRuntime, per item
///   vendor_batched  tfbench::providers::vendor_batched        IndependentRuntime, whole batch
const ProviderDecl& declaration(ItemProvider provider, BatchedFamily family);
/// The item provider a declaration stands for; empty for declarations this engine cannot call per
/// batch item (e.g. kokkos_same_pool, or a user's custom provider).
std::optional<ItemProvider> item_provider_of(const ProviderDecl* decl);

}  // namespace tfbench::ops
