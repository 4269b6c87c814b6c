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
