#pragma once
// Facts about this build, fixed at compile time and written into every result file.

namespace tfbench::harness {

struct BuildInfo {
  const char* version;       // tfbench version
  const char* git_revision;  // commit of the source tree, or "unknown"
  const char* git_dirty;     // "true", "false" or "unknown": tracked files differ from the commit
  const char* compiler;      // e.g. "GNU 12.2.0"
  const char* build_type;    // CMAKE_BUILD_TYPE
  const char* build_flags;   // flags that shape measured code (same for engine and peers)
  const char* kokkos_version;
  const char* kokkos_kernels_version;
  const char* kokkos_dir;
};

const BuildInfo& build_info();

}  // namespace tfbench::harness
