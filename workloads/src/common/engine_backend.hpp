#pragma once
// The engine backend an engine variant runs on: a CpuBackend over the worker's space and thread
// budget (a one-thread context runs its kernels on Kokkos::Serial, as the engine decides), and the
// unwrapping of session entry results into WorkloadErrors that say where and why.

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/workloads/family.hpp"

#include <functional>
#include <string>

namespace tfbench::workloads {

/// A CPU backend on ctx.space with ctx.threads threads. Throws WorkloadError when the engine
/// rejects the configuration.
CpuBackend make_backend(const RunContext& ctx);

/// The space the engine runs a case's kernels on, as the engine decides it (context_space: Serial for
/// a one-thread budget on a host space, else the case's space, a device space whatever the host
/// thread count). Raw-Kokkos peers use it too, so that an engine row and its raw peer launch kernels
/// on the same space.
ExecSpaceKind engine_space(const RunContext& ctx);

/// True when the case runs on a device execution space (Cuda): engine variants then run a
/// DeviceBackend over Device tensors, and host-only libraries cannot take part.
bool on_device(const RunContext& ctx);

/// True in CUDA builds whose Kokkos Kernels has the cuBLAS TPL: the cuBLAS peers are variants there only.
bool build_has_cublas();

/// A DeviceBackend on the build's device space. Throws WorkloadError when the engine rejects it.
DeviceBackend make_device_backend();

/// Runs `op` in a session of a backend like the worker's: a DeviceBackend for a device case, else
/// make_backend(ctx). Throws WorkloadError when the backend cannot be made; the entry result as is.
template <class F>
auto with_case_session(const RunContext& ctx, F&& op) {
  if (on_device(ctx)) return make_device_backend().with_session(std::forward<F>(op));
  return make_backend(ctx).with_session(std::forward<F>(op));
}

/// Throws the WorkloadError of a failed session entry, naming `where`.
[[noreturn]] void throw_entry_error(const SessionEntryError& error, const std::string& where);

/// The pool traffic of one call of `iteration` on `backend`'s host pool: fresh allocations (pool
/// misses), pool hits, and the bytes the pool keeps cached afterwards.
ResourceCounts pool_resources(const CpuBackend& backend, const std::function<void()>& iteration);
/// The same on a DeviceBackend's device pool (where its Device tensors' leases come from).
ResourceCounts pool_resources(const DeviceBackend& backend, const std::function<void()>& iteration);

}  // namespace tfbench::workloads
