#pragma once
// Helpers shared by the exec tests.

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "test_context.hpp"
#include "tfbench/engine/exec/backend.hpp"

namespace tfbench::testing {

/// A CPU backend over the test's space: Serial, or OpenMP with the whole pool as its budget.
inline CpuBackend test_backend(Admission admission = Admission::Queue) {
  CpuBackendConfig config;
  config.space = is_host_space(space()) ? space() : ExecSpaceKind::Serial;
  config.admission = admission;
  auto made = CpuBackend::create(config);
  if (!made) throw std::runtime_error(made.error().message);
  return std::move(made).value();
}

inline CpuBackend backend_on(CpuSet cpus, Admission admission = Admission::Queue) {
  CpuBackendConfig config;
  config.cpus = cpus;
  config.admission = admission;
  auto made = CpuBackend::create(config);
  if (!made) throw std::runtime_error(made.error().message);
  return std::move(made).value();
}

/// The OpenMP pool size of this process (0 without OpenMP).
inline int openmp_pool() {
  return is_enabled(ExecSpaceKind::OpenMP) ? concurrency(ExecSpaceKind::OpenMP) : 0;
}

/// Calls f with the session's host space instance (Kokkos::Serial or Kokkos::OpenMP): test kernels
/// use host lambdas and host data, so they are instantiated for host spaces only.
template <class F>
decltype(auto) with_host_space(const Session& session, F&& f) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (session.space() == ExecSpaceKind::OpenMP) return f(Kokkos::OpenMP());
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  if (session.space() == ExecSpaceKind::Serial) return f(Kokkos::Serial());
#endif
  throw std::runtime_error("test kernel: the session's space is not a host space");
}

/// Polls pred until it holds or `seconds` pass; returns whether it held.
template <class Pred>
bool eventually(Pred pred, double seconds = 10.0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

}  // namespace tfbench::testing
