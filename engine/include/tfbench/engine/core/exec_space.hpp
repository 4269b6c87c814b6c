#pragma once
// Runtime names for the Kokkos execution spaces compiled into this build, and one dispatcher that
// turns the runtime choice into the static Kokkos type exactly once per operation.

#include <Kokkos_Core.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfbench {

enum class ExecSpaceKind { Serial, OpenMP, Cuda };

/// "serial", "openmp" or "cuda".
const char* name(ExecSpaceKind kind);
/// Parses a name as printed by name(); case-insensitive. Empty when unknown.
std::optional<ExecSpaceKind> parse_exec_space(std::string_view text);
/// The spaces this build of Kokkos enables, host spaces first.
std::vector<ExecSpaceKind> enabled_exec_spaces();
bool is_enabled(ExecSpaceKind kind);
/// True when the space executes on the host and its memory is host-accessible (inline: every
/// operation asks).
constexpr bool is_host_space(ExecSpaceKind kind) {
  return kind != ExecSpaceKind::Cuda;
}
/// Threads (or CUDA concurrency) of an initialized space.
int concurrency(ExecSpaceKind kind);
/// The space Kokkos uses by default for device work (Cuda where enabled, else the default host space).
ExecSpaceKind default_device_space();

namespace impl {
/// One default instance per execution space type for the process. Kokkos 4's default constructors
/// allocate a shared-pointer control block each time (Kokkos 3.4's were stateless): constructing one
/// per operation would put a heap allocation on every call; copying this one only counts a reference.
template <class Space>
const Space& default_instance() {
  static const Space instance;
  return instance;
}
}  // namespace impl

/// Calls f with the default instance of the Kokkos space named by `kind` (a copy; copies are cheap).
/// Throws std::invalid_argument when the space is not enabled in this build.
template <class F>
decltype(auto) dispatch_exec_space(ExecSpaceKind kind, F&& f) {
  switch (kind) {
#if defined(KOKKOS_ENABLE_SERIAL)
    case ExecSpaceKind::Serial:
      return f(impl::default_instance<Kokkos::Serial>());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    case ExecSpaceKind::OpenMP:
      return f(impl::default_instance<Kokkos::OpenMP>());
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    case ExecSpaceKind::Cuda:
      return f(impl::default_instance<Kokkos::Cuda>());
#endif
    default:
      break;
  }
  throw std::invalid_argument(std::string("tfbench: execution space '") + name(kind) +
                              "' is not enabled in this Kokkos build");
}

/// The ExecSpaceKind of a static Kokkos execution space type.
template <class ExecSpace>
constexpr ExecSpaceKind exec_space_kind() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) return ExecSpaceKind::Cuda;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same<ExecSpace, Kokkos::OpenMP>::value) return ExecSpaceKind::OpenMP;
#endif
  return ExecSpaceKind::Serial;
}

}  // namespace tfbench
