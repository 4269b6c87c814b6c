// Names of the item providers.

#include "tfbench/engine/ops/item_providers.hpp"

#include <cctype>
#include <string>

namespace tfbench::ops {

const char* name(ItemProvider provider) {
  switch (provider) {
    case ItemProvider::Specialized:
      return "specialized";
    case ItemProvider::Libxsmm:
      return "libxsmm";
    case ItemProvider::KokkosBatched:
      return "kokkosbatched";
    case ItemProvider::Blas:
      return "blas";
    case ItemProvider::VendorBatched:
      return "vendor_batched";
  }
  return "unknown";
}

std::optional<ItemProvider> parse_item_provider(std::string_view text) {
  std::string lower(text);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (ItemProvider p : {ItemProvider::Specialized, ItemProvider::Libxsmm, ItemProvider::KokkosBatched,
                         ItemProvider::Blas, ItemProvider::VendorBatched}) {
    if (lower == name(p)) return p;
  }
  return std::nullopt;
}

}  // namespace tfbench::ops

namespace tfbench::ops {

namespace providers {
// A short name: it fits std::string's inline buffer when the resolver formats a conflict. An inline
// kernel: about 2 ns per item beyond its multiply-adds (512 items of 2 x 2 take 1.2-1.5 us here).
const ProviderDecl specialized{"specialized", ProviderParallelism::Sequential, true, true, false, 2};
const ProviderDecl specialized_solve{"specialized", ProviderParallelism::Sequential, true, true, false};
}  // namespace providers

const ProviderDecl& declaration(ItemProvider provider, BatchedFamily family) {
  switch (provider) {
    case ItemProvider::Specialized:
      return family == BatchedFamily::Solve ? providers::specialized_solve : providers::specialized;
    case ItemProvider::Libxsmm:
      return tfbench::providers::libxsmm;
    case ItemProvider::KokkosBatched:
      return tfbench::providers::kokkos_batched_serial;
    case ItemProvider::Blas:
      return family == BatchedFamily::Solve ? tfbench::providers::lapack : tfbench::providers::openblas;
    case ItemProvider::VendorBatched:
      return tfbench::providers::vendor_batched;
  }
  return providers::specialized;
}

std::optional<ItemProvider> item_provider_of(const ProviderDecl* decl) {
  if (decl == &providers::specialized || decl == &providers::specialized_solve)
    return ItemProvider::Specialized;
  if (decl == &tfbench::providers::libxsmm) return ItemProvider::Libxsmm;
  if (decl == &tfbench::providers::kokkos_batched_serial) return ItemProvider::KokkosBatched;
  if (decl == &tfbench::providers::openblas || decl == &tfbench::providers::lapack) return ItemProvider::Blas;
  if (decl == &tfbench::providers::vendor_batched) return ItemProvider::VendorBatched;
  return std::nullopt;
}

}  // namespace tfbench::ops
