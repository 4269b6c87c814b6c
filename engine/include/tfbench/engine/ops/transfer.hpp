#pragma once
// Upload/download between Host and Device tensors through the storage concern (explicit deep
// copies; strided sources are compacted on their own side). A session whose space reaches device
// memory runs the copy there; otherwise the default device execution space does.

#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/impl/facade.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::ops {

template <class Src>
auto upload(Session& s, const Src& host) {
  (void)impl::exec_target(s);  // a parked root session is refused
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace,
                                           DeviceMemorySpace>::accessible) {
    return s.dispatch([&](auto space) { return tfbench::upload(space, host); });
  } else {
    return tfbench::upload(host);
  }
}

template <class Src>
auto download(Session& s, const Src& device) {
  (void)impl::exec_target(s);  // a parked root session is refused
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace,
                                           DeviceMemorySpace>::accessible) {
    return s.dispatch([&](auto space) { return tfbench::download(space, device); });
  } else {
    return tfbench::download(device);
  }
}

}  // namespace tfbench::ops
