#pragma once
// The tfbench subcommands. Each registers its options on the CLI11 app and runs when parsed; the
// help text of every option is the reference docs/cli.md mirrors.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace tfbench::harness::cli {

class Command {
 public:
  virtual ~Command() = default;
  virtual CLI::App* add(CLI::App& app) = 0;
  virtual int execute() = 0;
  /// Whether the command sizes memory levels (its workers' ceilings and tuning classes, or an
  /// estimate keyed by them): main settles the LLC's capacity before it runs (llc_capacity.hpp).
  virtual bool sizes_memory_levels() const { return false; }
};

std::unique_ptr<Command> make_run_command(std::string command_line);
std::unique_ptr<Command> make_list_command();
std::unique_ptr<Command> make_validate_command();
std::unique_ptr<Command> make_info_command();
std::unique_ptr<Command> make_compare_command();
std::unique_ptr<Command> make_merge_command();
std::unique_ptr<Command> make_report_command();
std::unique_ptr<Command> make_export_command();
std::unique_ptr<Command> make_worker_command();
std::unique_ptr<Command> make_tune_command(std::string command_line);

}  // namespace tfbench::harness::cli
