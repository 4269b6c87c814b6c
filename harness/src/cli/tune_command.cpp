// `tfbench tune`: calibrates Auto on this machine and writes the tuning file the workers of later
// runs install (docs/tuning.md); `tfbench tune --show` prints a file's decisions and whether it
// applies here; `tfbench tune --prune DAYS` removes the files no run has used for DAYS days.

#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "tune/tune_run.hpp"
#include "tune/tuning_file.hpp"
#include "tune/tuning_prune.hpp"

namespace tfbench::harness::cli {
namespace {

class TuneCommand final : public Command {
 public:
  bool sizes_memory_levels() const override { return true; }
  explicit TuneCommand(std::string command_line) : command_line_(std::move(command_line)) {}

  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "tune",
        "Calibrate Auto on this machine: time every provider and strategy that can run each class Auto "
        "decides (batched GEMM and solve; element type x item size x memory level of the operands x "
        "threads), each "
        "checked against a reference first, and write the fastest per class to the tuning file that the "
        "workers of later runs use (`run --tuning`). A class measured while other work or the hypervisor "
        "took over 10% of the CPUs is measured again (at most twice, and as often again after the other "
        "classes); one still busy then is written but not used by Auto. Exit 0 written, 1 nothing could be "
        "measured, 2 bad input.");
    sub->add_option("--threads", threads_,
                    "thread counts to tune, comma separated; max = the CPUs tfbench may use")
        ->default_val("1,max");
    sub->add_option("-o,--output", output_,
                    "tuning file to write (default: this machine's and build's file in $TFBENCH_TUNING_DIR, "
                    "else $XDG_CACHE_HOME/tfbench/tuning, else ~/.cache/tfbench/tuning)");
    sub->add_option("--sizes", sizes_, "item sizes n (n x n items), comma separated")
        ->default_val("2,4,8,16,32");
    sub->add_option("--families", families_,
                    "what to calibrate, comma separated: gemm and solve (batched Auto), contraction (the "
                    "direct kernel's crossover)")
        ->default_val("gemm,solve,contraction");
    sub->add_option("--levels", levels_, "memory levels of the operands (l1, l2, llc, dram), comma separated")
        ->default_val("l1,l2,llc,dram");
    sub->add_option("--dtypes", dtypes_, "element types (f64, f32), comma separated")->default_val("f64,f32");
    sub->add_option("--sizes-per-level", sizes_per_level_,
                    "operand sizes measured in l2 and llc: one per factor of 8 of the level's range, at "
                    "most this many (1: the level's geometric middle only), and above 1 one more in the "
                    "L2's top octave, where operands begin to spill, one in the LLC's bottom octave, "
                    "where they have just left the L2, and (not with --quick) one in the LLC's top "
                    "octave, where they begin to spill from it; Auto takes the nearest")
        ->default_val(3)
        ->check(CLI::Range(1, 8));
    sub->add_option("--rounds", rounds_,
                    "interleaved timing rounds per class; each candidate's fastest round decides")
        ->default_val(5)
        ->check(CLI::Range(1, 101));
    sub->add_option("--min-time", min_time_, "seconds per timing sample")
        ->default_val(0.005)
        ->check(CLI::Range(0.0, 10.0));
    sub->add_option(
           "--dram-mib", dram_mib_,
           "operand MiB of the DRAM classes (raised to twice the last-level cache where that is more)")
        ->default_val(256)
        ->check(CLI::Range(1.0, 65536.0));
    sub->add_flag(
        "--quick", quick_,
        "the bounded calibration `run` does on first use: cache levels only (l1, l2, llc), 3 rounds of "
        "2 ms samples");
    sub->add_flag("--show", show_,
                  "print the decisions of the tuning file (--output or this machine's) and whether it "
                  "applies here; measure nothing");
    sub->add_option("--prune", prune_days_,
                    "remove the tuning files of the tuning directory (--output's, or this machine's) "
                    "that no run has used for DAYS days, except this build's own; other files stay; "
                    "measure nothing")
        ->type_name("DAYS")
        ->check(CLI::Range(0.0, 36500.0));
    // One thread count in this process: how `tune` runs each count in a child of its own.
    sub->add_option("--single-threads", single_threads_)->group("");
    sub->add_flag("--no-llc-top-octave", no_llc_top_octave_)->group("");  // a --quick parent's child
    return sub;
  }

  int execute() override {
    try {
      const std::string path = output_.empty() ? tune::default_tuning_path(tune::current_key()) : output_;
      if (show_) return show(path);
      if (prune_days_) {
        const std::string dir = std::filesystem::path(path).parent_path().string();
        tune::prune_tuning_dir(dir.empty() ? "." : dir, *prune_days_, tune::current_key(), std::cout);
        return 0;
      }
      tune::TuneRequest request;
      if (!tune::parse_request(threads_, sizes_, families_, levels_, dtypes_, request, std::cerr)) return 2;
      request.rounds = rounds_;
      request.sizes_per_level = sizes_per_level_;
      request.min_time_s = min_time_;
      request.dram_bytes = dram_mib_ * 1024 * 1024;
      request.llc_top_octave = !no_llc_top_octave_;
      if (quick_) tune::make_quick(request);
      request.command_line = command_line_;
      if (single_threads_ > 0) return tune::run_tuning_child(request, single_threads_, path, std::cerr);
      return tune::run_tuning(request, path, std::cerr);
    } catch (const std::exception& e) {
      std::cerr << "tfbench tune: " << e.what() << "\n";
      return 2;
    }
  }

 private:
  int show(const std::string& path) const {
    const tune::TuningFile file = tune::read_tuning_file(path);
    std::cout << "tuning file " << path << " (" << file.created_utc << ", " << file.key.cpu_model << ", "
              << file.key.online_cpus << " CPUs)\n";
    if (auto why = tune::key_mismatch(file.key, tune::current_key())) {
      std::cout << "does NOT apply here: " << *why << "\n";
    } else {
      std::cout << "applies to this machine and build\n";
    }
    std::cout << tune::decision_table(file);
    return 0;
  }

  std::string command_line_;
  std::string threads_, output_, sizes_, families_, levels_, dtypes_;
  int rounds_ = 5, sizes_per_level_ = 3;
  double min_time_ = 0.005;
  double dram_mib_ = 256;
  bool quick_ = false, show_ = false, no_llc_top_octave_ = false;
  int single_threads_ = 0;
  std::optional<double> prune_days_;
};

}  // namespace

std::unique_ptr<Command> make_tune_command(std::string command_line) {
  return std::make_unique<TuneCommand>(std::move(command_line));
}

}  // namespace tfbench::harness::cli
