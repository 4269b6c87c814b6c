// tfbench: runs YAML-described workload families, times them with Google Benchmark and writes
// HDF5 results with full provenance.

#include "cli/info.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"tfbench: a benchmark workbench for tensor execution architectures"};
  app.require_subcommand(1);
  auto* info = app.add_subcommand("info", "Show Kokkos spaces, BLAS, compiler and CPU of this build");
  CLI11_PARSE(app, argc, argv);

  if (info->parsed()) {
    Kokkos::InitArguments args;
    args.disable_warnings = true;
    Kokkos::ScopeGuard kokkos(args);
    tfbench::harness::print_info(std::cout);
  }
  return 0;
}
