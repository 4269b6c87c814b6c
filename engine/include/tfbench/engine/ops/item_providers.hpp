#pragma once
// The item providers of batched GEMM and batched solve: who computes one item (or the whole batch).
// Each has a declaration in the exec concern's terms (ProviderDecl) that the route resolver checks.

#include <optional>
#include <string_view>

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

}  // namespace tfbench::ops
