#pragma once
// The engine backend an engine variant runs on: a CpuBackend over the worker's space and thread
// budget (a one-thread context runs its kernels on Kokkos::Serial, as the engine decides), and the
// unwrapping of session entry results into WorkloadErrors that say where and why.

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/workloads/family.hpp"

#include <string>
#include <utility>

namespace tfbench::workloads {

/// A CPU backend on ctx.space with ctx.threads threads. Throws WorkloadError when the engine
/// rejects the configuration.
CpuBackend make_backend(const RunContext& ctx);

/// The space the engine runs a context's kernels on: Serial for a one-thread budget (no OpenMP
/// region is paid for), else the worker's space. Raw-Kokkos peers use it too, so that an engine row
/// and its raw peer launch kernels on the same space.
ExecSpaceKind engine_space(const RunContext& ctx);

/// The value of a session entry, or a WorkloadError naming `where` and the entry error.
template <class R>
auto entered(R&& result, const char* where) {
  if (!result) {
    throw WorkloadError(std::string(where) + ": session entry failed (" + name(result.error().kind) +
                        "): " + result.error().message);
  }
  if constexpr (!std::is_void<typename std::decay_t<R>::value_type>::value)
    return std::forward<R>(result).value();
}

}  // namespace tfbench::workloads
