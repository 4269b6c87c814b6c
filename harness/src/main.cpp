// tfbench: runs YAML-described workload families, times them with Google Benchmark and writes
// HDF5 results with full provenance; compares, merges and reports result files.

#include "cli/commands.hpp"
#include "provenance/blas_core.hpp"
#include "provenance/llc_capacity.hpp"
#include "run/environment.hpp"

#include <CLI/CLI.hpp>

#include <cstring>
#include <iostream>
#include <vector>

namespace {

/// The command line as a shell would need it quoted: the run's `command_line` provenance.
std::string quoted_command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=:,+@%") == std::string::npos;
    if (i) out += ' ';
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace

// Before main, the instruction-set gate has checked that this CPU has every extension the build's
// -march lets the code use (harness/src/isa/gate.cpp: main is compiled with that -march too).
int main(int argc, char** argv) {
  using namespace tfbench::harness;
  const bool is_worker = argc > 1 && std::strcmp(argv[1], "worker") == 0;
  // libgomp pinned this process at start if OMP_PROC_BIND/OMP_PLACES is set; undo that so that
  // `max` and the workers see every CPU tfbench was given (workers get the binding removed).
  if (!is_worker) impl::undo_startup_pinning();
  // Before any process is started: OpenBLAS's kernels for this CPU's instruction set where its model
  // detection fell back to SSE-era ones (provenance/blas_core.hpp); workers inherit the choice.
  if (!is_worker) correct_openblas_core();

  CLI::App app{
      "tfbench: a benchmark workbench for tensor execution architectures.\n"
      "Run YAML-configured workload families, record HDF5 results, compare runs."};
  app.require_subcommand(1);
  app.fallthrough(false);
  std::vector<std::unique_ptr<cli::Command>> commands;
  commands.push_back(cli::make_run_command(quoted_command_line(argc, argv)));
  commands.push_back(cli::make_list_command());
  commands.push_back(cli::make_validate_command());
  commands.push_back(cli::make_info_command());
  commands.push_back(cli::make_compare_command());
  commands.push_back(cli::make_merge_command());
  commands.push_back(cli::make_report_command());
  commands.push_back(cli::make_export_command());
  commands.push_back(cli::make_tune_command(quoted_command_line(argc, argv)));
  commands.push_back(cli::make_worker_command());
  std::vector<CLI::App*> subcommands;
  for (auto& c : commands) subcommands.push_back(c->add(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // help and version exit 0; every usage error exits 2
  }
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (!subcommands[i]->parsed()) continue;
    // The LLC first, where it is measured: the command's workers inherit it.
    if (commands[i]->sizes_memory_levels()) {
      try {
        settle_llc_capacity(std::cerr);
      } catch (const std::exception& error) {
        std::cerr << "tfbench: " << error.what() << "\n";
        return 2;
      }
    }
    return commands[i]->execute();
  }
  return 2;
}
