#pragma once
// Representation tags of the tensor family (one family, three representations) and the memory spaces behind
// them.
//   Host     stable host-accessible initialized elements (any element type)
//   Device   a Kokkos allocation in DeviceMemorySpace, never read from the host implicitly
//   Dynamic  either of the two, decided at run time (the default); must be narrowed or mapped

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tfbench {

/// Memory space of Device tensors: HostSpace on host builds, CudaSpace on CUDA builds.
using DeviceMemorySpace = Kokkos::DefaultExecutionSpace::memory_space;
/// Execution space whose kernels reach DeviceMemorySpace by default.
using DeviceExecSpace = Kokkos::DefaultExecutionSpace;

/// True when host code may dereference DeviceMemorySpace (host builds): mappings are then zero-copy.
constexpr bool kDeviceMemoryIsHostAccessible =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemorySpace>::accessible;

struct Host {
  static constexpr const char* name() { return "host"; }
};
struct Device {
  static constexpr const char* name() { return "device"; }
};
struct Dynamic {
  static constexpr const char* name() { return "dynamic"; }
};

template <class Rep>
struct is_representation
    : std::integral_constant<bool, std::is_same<Rep, Host>::value || std::is_same<Rep, Device>::value ||
                                       std::is_same<Rep, Dynamic>::value> {};

/// Where a tensor's elements live at run time.
enum class MemorySpaceKind { Host, Device };
const char* name(MemorySpaceKind kind);

/// How an owner's allocation is released.
enum class AllocationKind {
  Plain,    // an adopted std::vector (Host) or a Kokkos allocation (Device)
  Pooled,   // a block checked out of a BufferPool; returned to it once, or freed if the pool is gone
  Managed,  // foreign memory with a custom deleter, called exactly once
};
const char* name(AllocationKind kind);

}  // namespace tfbench
