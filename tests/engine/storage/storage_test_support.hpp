#pragma once
// Execution spaces for storage tests that also compile on CUDA builds: a kernel over device memory
// needs a space that can reach DeviceMemorySpace, one over host memory a space that can reach
// HostSpace. Each helper uses the test's space when it can, else the space that can.

#include <Kokkos_Core.hpp>

#include "test_context.hpp"
#include "tfbench/engine/storage/representation.hpp"

namespace tfbench::testing {

/// Calls f with the test's space, or DeviceExecSpace when the test's space cannot reach device memory.
template <class F>
decltype(auto) with_device_capable_space(F&& f) {
  return with_space([&](auto exec) {
    using Exec = decltype(exec);
    if constexpr (Kokkos::SpaceAccessibility<Exec, DeviceMemorySpace>::accessible)
      return f(exec);
    else
      return f(DeviceExecSpace());
  });
}

/// Calls f with the test's space, or the default host space when the test's space cannot reach host
/// memory.
template <class F>
decltype(auto) with_host_capable_space(F&& f) {
  return with_space([&](auto exec) {
    using Exec = decltype(exec);
    if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible)
      return f(exec);
    else
      return f(Kokkos::DefaultHostExecutionSpace());
  });
}

}  // namespace tfbench::testing
