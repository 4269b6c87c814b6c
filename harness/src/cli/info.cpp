#include "tfbench/harness/info.hpp"

#include "cli/commands.hpp"
#include "run/environment.hpp"
#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"
#include "tfbench/harness/build_info.hpp"
#include "tfbench/harness/config.hpp"
#include "tfbench/harness/isa.hpp"
#include "tfbench/harness/openmp_runtime.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/registry.hpp"
#include "tfbench/workloads/tuning.hpp"
#include "util/text_table.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>

namespace tfbench::harness {

void print_info(std::ostream& out) {
  const BuildInfo& build = build_info();
  out << "tfbench " << build.version << " (git " << build.git_revision
      << (std::string(build.git_dirty) == "true" ? ", dirty" : "") << ")\n";
  out << "compiler:        " << build.compiler << " [" << build.build_type << "] " << build.build_flags
      << "\n";
  out << "kokkos:          " << build.kokkos_version << " (" << build.kokkos_dir << ")\n";
  out << "kokkos kernels:  " << build.kokkos_kernels_version << "\n";
  out << "execution spaces (this process):\n";
  for (ExecSpaceKind kind : enabled_exec_spaces()) {
    const std::string device = device_description(kind);
    out << "  " << name(kind) << ": concurrency " << concurrency(kind)
        << (kind == exec_space_kind<Kokkos::DefaultExecutionSpace>() ? " (default)" : "")
        << (device.empty() ? "" : ", on " + device) << "\n";
  }
  const BlasInfo blas = blas_info();
  out << "blas:            " << blas.vendor << ", " << blas.threading << ", " << blas.threads << " threads\n";
  out << "                 " << blas.config << "\n";
  out << "cpu:             " << cpu_model() << " (" << online_cpu_count() << " online, "
      << affinity_cpu_count() << " in tfbench's affinity mask = 'max')\n";
  out << "host:            " << host_name() << "\n";
  const std::string thp = transparent_hugepage_mode();
  out << "huge pages:      transparent " << (thp.empty() ? "unknown" : thp) << "\n";
  const std::string omp = openmp_runtime_library();
  out << "openmp runtime:  " << (omp.empty() ? "linked statically (no shared library serves omp_*)" : omp)
      << "\n";
  const workloads::DetectedCaches caches = workloads::detect_caches();
  const auto kib = [](double bytes) { return std::to_string(static_cast<long long>(bytes / 1024)) + " KiB"; };
  out << "caches:          L1d " << kib(caches.sizes.l1_bytes) << ", L2 " << kib(caches.sizes.l2_bytes)
      << ", LLC " << kib(caches.sizes.llc_bytes) << " (from " << caches.source;
  if (caches.llc_source != "sysfs" && caches.llc_source != "cpuid" && caches.llc_source != "none")
    out << "; LLC " << caches.llc_source << ", reported " << kib(caches.reported_llc_bytes);
  out << ")\n";
  const IsaInfo isa = isa_info();
  const auto or_none = [](const std::string& list) { return list.empty() ? std::string("none") : list; };
  out << "build host:      " << isa.build_host_cpu << ", TFBENCH_ARCH=" << isa.build_arch << "\n";
  out << "isa required:    " << or_none(isa.required) << "\n";
  out << "isa build host:  " << or_none(isa.build_host) << "\n";
  out << "isa this host:   " << or_none(isa.run_host) << "\n";
  out << "isa missing:     "
      << (isa.missing.empty() ? "none" : isa.missing + " (`run` refuses: docs/cli.md, \"Instruction set\")")
      << "\n";
  out << "families:\n";
  for (const auto* family : workloads::families()) {
    out << "  " << family->name() << ": " << family->description() << "\n";
  }
}

void print_verified_workers(const std::vector<VerifiedWorker>& workers, std::ostream& out) {
  out << "worker verification (what `tfbench run` checks before timing anything):\n";
  impl::TextTable table({"threads>", "space", "kokkos>", "blas>", "cpus>", "result"});
  for (const auto& w : workers) {
    table.add({std::to_string(w.threads), w.exec_space, std::to_string(w.kokkos_threads),
               std::to_string(w.blas_threads), std::to_string(w.affinity_cpus),
               w.verified ? "verified" : "FAILED: " + w.why});
  }
  table.print(out, "  ");
  const std::string bind = impl::environment_value("OMP_PROC_BIND");
  const std::string places = impl::environment_value("OMP_PLACES");
  out << "  this shell: OMP_PROC_BIND=" << (bind.empty() ? "(unset)" : bind)
      << ", OMP_PLACES=" << (places.empty() ? "(unset)" : places)
      << "; workers run with both removed unless forced (--omp-proc-bind, --omp-places)\n";
}

namespace cli {
namespace {

class InfoCommand final : public Command {
 public:
  bool sizes_memory_levels() const override { return true; }
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "info",
        "Show Kokkos spaces, BLAS, compiler, CPU, caches and families of this build, and start a "
        "worker per thread configuration to show what it verifies.\n"
        "Where sysfs lists no L3, the LLC's capacity is measured first (once per machine; "
        "$TFBENCH_LLC_BYTES overrides it).\n"
        "Exit codes: 0 every worker verified, 1 a verification failed, 2 usage error.");
    sub->add_option("--threads", threads_, "thread configurations to verify (default 1,max)")
        ->type_name("LIST");
    sub->add_flag("--no-verify", no_verify_, "skip starting workers");
    sub->add_option("--omp-proc-bind", proc_bind_, "force OMP_PROC_BIND in the workers, as `run` does")
        ->type_name("VALUE");
    sub->add_option("--omp-places", places_, "force OMP_PLACES in the workers")->type_name("VALUE");
    return sub;
  }

  int execute() override {
    std::vector<VerifiedWorker> verified;
    if (!no_verify_) {
      std::vector<int> threads;
      try {
        threads = parse_thread_list(threads_, available_cpus());
      } catch (const std::invalid_argument& e) {
        std::cerr << "--threads: " << e.what() << "\n";
        return 2;
      }
      // Workers start before Kokkos runs here: an OpenMP runtime bound by OMP_PROC_BIND could pin
      // this process again and hand the narrowed mask to the workers.
      std::optional<std::string> bind, places;
      if (!proc_bind_.empty()) bind = proc_bind_;
      if (!places_.empty()) places = places_;
      verified = verify_workers(threads, bind, places);
    }
    {
      const KokkosRuntime kokkos;
      print_info(std::cout);
    }
    if (no_verify_) return 0;
    print_verified_workers(verified, std::cout);
    for (const auto& w : verified) {
      if (!w.verified) return 1;
    }
    return 0;
  }

 private:
  std::string threads_ = "1,max";
  bool no_verify_ = false;
  std::string proc_bind_, places_;
};

}  // namespace

std::unique_ptr<Command> make_info_command() {
  return std::make_unique<InfoCommand>();
}

}  // namespace cli
}  // namespace tfbench::harness
