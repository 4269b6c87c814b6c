#include "cli/info.hpp"

#include "tfbench/engine/core/build_info.hpp"
#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/core/system_info.hpp"
#include "tfbench/workloads/registry.hpp"

#include <Kokkos_Core.hpp>

namespace tfbench::harness {

void print_info(std::ostream& out) {
  const BuildInfo& build = build_info();
  out << "tfbench " << build.version << " (git " << build.git_revision
      << (std::string(build.git_dirty) == "true" ? ", dirty" : "") << ")\n";
  out << "compiler:        " << build.compiler << " [" << build.build_type << "] " << build.build_flags
      << "\n";
  out << "kokkos:          " << build.kokkos_version << " (" << build.kokkos_dir << ")\n";
  out << "kokkos kernels:  " << build.kokkos_kernels_version << "\n";
  out << "execution spaces:\n";
  for (ExecSpaceKind kind : enabled_exec_spaces()) {
    out << "  " << name(kind) << ": concurrency " << concurrency(kind)
        << (kind == exec_space_kind<Kokkos::DefaultExecutionSpace>() ? " (default)" : "") << "\n";
  }
  const BlasInfo blas = blas_info();
  out << "blas:            " << blas.vendor << ", " << blas.threading << ", " << blas.threads << " threads\n";
  out << "                 " << blas.config << "\n";
  out << "cpu:             " << cpu_model() << " (" << online_cpu_count() << " online, "
      << affinity_cpu_count() << " in this process's affinity mask)\n";
  out << "host:            " << host_name() << "\n";
  out << "families:\n";
  for (const auto* family : workloads::families()) {
    out << "  " << family->name() << ": " << family->description() << "\n";
  }
}

}  // namespace tfbench::harness
