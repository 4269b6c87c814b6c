// The one Catch2 main of every tfbench test executable: it owns Kokkos::initialize/finalize and
// selects the execution space (--space) and thread count (--threads) the tests run on.

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <iostream>

#include "test_context.hpp"

int main(int argc, char* argv[]) {
  Catch::Session session;
  std::string space_name = "serial";
  int threads = 1;
  using Catch::clara::Opt;
  auto cli = session.cli() |
             Opt(space_name, "space")["--space"]("execution space the tests run on: serial, openmp, cuda") |
             Opt(threads, "n")["--threads"]("Kokkos host threads (OpenMP)");
  session.cli(cli);
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;

  const auto space = tfbench::parse_exec_space(space_name);
  if (!space || !tfbench::is_enabled(*space)) {
    std::cerr << "test main: execution space '" << space_name << "' is not enabled in this build\n";
    return 2;
  }
  if (threads < 1) {
    std::cerr << "test main: --threads must be >= 1\n";
    return 2;
  }
  tfbench::testing::detail::set_context(*space, threads);

  int result = 0;
  {
    tfbench::KokkosStartOptions options;
    options.num_threads = threads;
    const tfbench::KokkosRuntime kokkos(options);
    const int concurrency = tfbench::concurrency(*space);
    if (*space == tfbench::ExecSpaceKind::OpenMP && concurrency != threads) {
      std::cerr << "test main: asked for " << threads << " OpenMP threads, Kokkos runs " << concurrency
                << "\n";
      result = 2;
    } else {
      result = session.run();
    }
  }
  return result;
}
