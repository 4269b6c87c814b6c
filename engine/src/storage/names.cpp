// Names of the storage enums (representations, allocation kinds, conversions, mappings).
#include "tfbench/engine/storage/conversion.hpp"
#include "tfbench/engine/storage/mapping.hpp"
#include "tfbench/engine/storage/representation.hpp"

namespace tfbench {

const char* name(MemorySpaceKind kind) {
  switch (kind) {
    case MemorySpaceKind::Host:
      return "host";
    case MemorySpaceKind::Device:
      return "device";
  }
  return "unknown";
}

const char* name(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::Plain:
      return "plain";
    case AllocationKind::Pooled:
      return "pooled";
    case AllocationKind::Managed:
      return "managed";
  }
  return "unknown";
}

const char* name(ConversionCause cause) {
  switch (cause) {
    case ConversionCause::NotHostResident:
      return "not_host_resident";
    case ConversionCause::NotDeviceResident:
      return "not_device_resident";
    case ConversionCause::RankMismatch:
      return "rank_mismatch";
    case ConversionCause::ElementCountMismatch:
      return "element_count_mismatch";
    case ConversionCause::NotCompact:
      return "not_compact";
  }
  return "unknown";
}

const char* name(MapPolicy policy) {
  switch (policy) {
    case MapPolicy::Auto:
      return "auto";
    case MapPolicy::Staged:
      return "staged";
  }
  return "unknown";
}

}  // namespace tfbench
