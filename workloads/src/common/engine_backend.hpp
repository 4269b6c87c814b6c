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

/// The space the engine runs a context's kernels on: Serial for a one-thread budget (no OpenMP
/// region is paid for), else the worker's space. Raw-Kokkos peers use it too, so that an engine row
/// and its raw peer launch kernels on the same space.
ExecSpaceKind engine_space(const RunContext& ctx);

/// Throws the WorkloadError of a failed session entry, naming `where`.
[[noreturn]] void throw_entry_error(const SessionEntryError& error, const std::string& where);

/// The pool traffic of one call of `iteration` on `backend`'s host pool: fresh allocations (pool
/// misses), pool hits, and the bytes the pool keeps cached afterwards.
ResourceCounts pool_resources(const CpuBackend& backend, const std::function<void()>& iteration);

}  // namespace tfbench::workloads
