#include "tfbench/engine/core/exec_space.hpp"

#include <algorithm>
#include <cctype>

namespace tfbench {

const char* name(ExecSpaceKind kind) {
  switch (kind) {
    case ExecSpaceKind::Serial:
      return "serial";
    case ExecSpaceKind::OpenMP:
      return "openmp";
    case ExecSpaceKind::Cuda:
      return "cuda";
  }
  return "unknown";
}

std::optional<ExecSpaceKind> parse_exec_space(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (auto kind : {ExecSpaceKind::Serial, ExecSpaceKind::OpenMP, ExecSpaceKind::Cuda}) {
    if (lower == name(kind)) return kind;
  }
  return std::nullopt;
}

std::vector<ExecSpaceKind> enabled_exec_spaces() {
  std::vector<ExecSpaceKind> spaces;
#if defined(KOKKOS_ENABLE_SERIAL)
  spaces.push_back(ExecSpaceKind::Serial);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  spaces.push_back(ExecSpaceKind::OpenMP);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  spaces.push_back(ExecSpaceKind::Cuda);
#endif
  return spaces;
}

bool is_enabled(ExecSpaceKind kind) {
  const auto spaces = enabled_exec_spaces();
  return std::find(spaces.begin(), spaces.end(), kind) != spaces.end();
}

int concurrency(ExecSpaceKind kind) {
  return dispatch_exec_space(kind, [](auto space) { return static_cast<int>(space.concurrency()); });
}

ExecSpaceKind default_device_space() {
  return exec_space_kind<Kokkos::DefaultExecutionSpace>();
}

}  // namespace tfbench
