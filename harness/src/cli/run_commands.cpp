// `tfbench run`, `list`, `validate` and the hidden `worker`.

#include "cli/commands.hpp"
#include "run/ceilings_cache.hpp"
#include "run/environment.hpp"
#include "run/variant_query.hpp"
#include "run/worker.hpp"
#include "tfbench/harness/config.hpp"
#include "tfbench/harness/plan.hpp"
#include "tfbench/harness/runner.hpp"
#include "tune/tune_run.hpp"

#include <unistd.h>

#include <iostream>
#include <limits>
#include <optional>
#include <utility>

namespace tfbench::harness::cli {
namespace {

/// The result file stores the seed as int64.
constexpr std::uint64_t kMaxSeed = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

/// Decimal digits only, at most kMaxSeed; nullopt otherwise.
std::optional<std::uint64_t> parse_seed(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const std::uint64_t value = std::stoull(text);
  if (value > kMaxSeed) return std::nullopt;
  return value;
}

/// Options shared by run and list: the ones that change which cases exist.
struct SelectionOptions {
  std::vector<std::string> configs;
  std::string threads;
  std::string filter;
  std::string space;
  int repetitions = 0;
  double min_time = 0.0;
  CLI::Option* threads_option = nullptr;
  CLI::Option* space_option = nullptr;

  void add(CLI::App* sub, bool timing) {
    sub->add_option("configs", configs, "YAML config file(s) (docs/configs.md)")
        ->required()
        ->type_name("CONFIG");
    threads_option = sub->add_option("--threads", threads,
                                     "thread configurations for every case, overriding the configs: e.g. "
                                     "1,2,max (max = CPUs tfbench may use)")
                         ->type_name("LIST");
    sub->add_option(
           "--filter", filter,
           "only cases whose id <family>/<params>/<variant> contains a match of this ECMAScript regex")
        ->type_name("REGEX");
    space_option =
        sub->add_option("--space", space,
                        "execution space for every case, overriding the configs (serial, openmp, ...)")
            ->type_name("SPACE");
    if (timing) {
      sub->add_option("--repetitions", repetitions, "samples per case, overriding the configs")
          ->check(CLI::Range(1, 100000))
          ->type_name("N");
      sub->add_option("--min-time", min_time, "seconds per sample, overriding the configs")
          ->check(CLI::Range(1e-6, 3600.0))
          ->type_name("S");
    }
  }

  /// Fills the overrides; returns false (after printing why) on a bad value.
  bool overrides(RunOverrides& o) const {
    // Given, even empty (`--threads ''`), the value is checked: an empty list is an error, not "unset".
    try {
      if (threads_option->count() > 0) o.threads = parse_thread_list(threads, available_cpus());
    } catch (const std::invalid_argument& e) {
      std::cerr << "--threads: " << e.what() << "\n";
      return false;
    }
    if (space_option->count() > 0) {
      const auto kind = parse_exec_space(space);
      if (!kind || !is_enabled(*kind)) {
        std::cerr << "--space: '" << space << "' is not an execution space enabled in this build\n";
        return false;
      }
      o.space = kind;
    }
    if (!filter.empty()) o.filter = filter;
    if (repetitions > 0) o.repetitions = repetitions;
    if (min_time > 0.0) o.min_time = min_time;
    return true;
  }
};

std::optional<std::vector<Config>> load_all(const std::vector<std::string>& paths);

class RunCommand final : public Command {
 public:
  bool sizes_memory_levels() const override { return true; }
  explicit RunCommand(std::string command_line) { options_.command_line = std::move(command_line); }

  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "run",
        "Run the cases of the config(s): one worker process per thread configuration, "
        "results appended to an HDF5 file case by case.\n"
        "Exit codes: 0 all ok or skipped, 1 a case failed (check_failed, error, crashed, timed_out) or "
        "a worker failed verification, 2 bad input (also: the output is being written by another run, or "
        "is a config), 3 the result file could not be written (it keeps every row printed before), "
        "130 interrupted.");
    selection_.add(sub, true);
    sub->add_option("-o,--out", out_, "result file (default results/<UTC timestamp>-<host>.h5)")
        ->type_name("FILE");
    sub->add_flag("--overwrite", options_.overwrite,
                  "replace --out if it exists (never a file another run is writing, nor a config)");
    seed_option_ =
        sub->add_option("--seed", seed_, "base seed of the random inputs (default: the config's, else 1)")
            ->type_name("N");
    sub->add_option("--case-timeout", case_timeout_,
                    "seconds one case (all its variants) may take before its worker is killed and the "
                    "variant running is recorded timed_out; 0: no limit (default: the config's case_timeout, "
                    "else 60 s scaled by the case's expected time)")
        ->check(CLI::Range(0.0, 1e6))
        ->type_name("S");
    sub->add_flag("--dry-run", options_.dry_run,
                  "list the cases, the estimated time and the output path, measure nothing");
    sub->add_option("--ceilings", ceilings_,
                    "the machine ceilings every row's roofline is taken against (peaks, and the L1, L2, LLC "
                    "and DRAM bandwidths; a few seconds per thread configuration to measure): cached (this "
                    "machine's cache, measured where it has no entry: $TFBENCH_CEILINGS_DIR, else "
                    "~/.cache/tfbench/ceilings), measure (measure again; the cache keeps the best of each "
                    "ceiling) or off "
                    "(default: $TFBENCH_CEILINGS, else cached; docs/results-format.md, Roofline)")
        ->type_name("cached|measure|off");
    sub->add_flag("--no-ceilings", no_ceilings_, "the same as --ceilings off");
    sub->add_option("--omp-proc-bind", proc_bind_,
                    "force OMP_PROC_BIND in the workers (normally removed: it pins the main thread and the "
                    "pthread OpenBLAS then runs one thread); verification reports the effect")
        ->type_name("VALUE");
    sub->add_option("--omp-places", places_, "force OMP_PLACES in the workers (normally removed)")
        ->type_name("VALUE");
    sub->add_flag(
        "--no-pin", no_pin_,
        "leave the workers' threads unpinned (by default each worker pins OpenMP thread i to core i "
        "of its affinity mask and OpenBLAS's threads to the cores after the first; the workers table's "
        "binding column records it)");
    sub->add_option(
           "--tuning", tuning_,
           "Auto's measured choices the workers use: auto (this machine's and build's tuning file, "
           "calibrated first with a bounded `tfbench tune --quick` where it is missing or stale), off "
           "(Auto's built-in preference), or a tuning file, which must apply here (default: "
           "$TFBENCH_TUNING, else auto; docs/tuning.md)")
        ->type_name("auto|off|FILE");
    return sub;
  }

  int execute() override {
    options_.configs = selection_.configs;
    if (!selection_.overrides(options_.overrides)) return kRunBadInput;
    if (!out_.empty()) options_.out = out_;
    if (case_timeout_ >= 0.0) options_.overrides.case_timeout = case_timeout_;
    if (seed_option_->count() > 0) {
      const auto seed = parse_seed(seed_);
      if (!seed) {
        std::cerr << "--seed: expected an integer in [0, " << kMaxSeed << "], found '" << seed_ << "'\n";
        return kRunBadInput;
      }
      options_.seed = *seed;
    }
    if (!proc_bind_.empty()) options_.omp_proc_bind = proc_bind_;
    if (!places_.empty()) options_.omp_places = places_;
    if (!apply_ceilings()) return kRunBadInput;
    options_.pin = !no_pin_;
    options_.interactive = isatty(STDERR_FILENO) != 0;
    auto input = load_run_input(options_, std::cerr);
    if (!input) return kRunBadInput;
    if (!options_.dry_run) apply_tuning(input->plan);
    return run_benchmarks(options_, std::move(*input), std::cout, std::cerr);
  }

 private:
  RunOptions options_;
  SelectionOptions selection_;
  std::string out_, proc_bind_, places_;
  CLI::Option* seed_option_ = nullptr;
  std::string seed_;  // text: CLI11 would clamp a value beyond int64, and a negative one meant "unset"
  double case_timeout_ = -1.0;  // CLI::Range keeps a given value >= 0
  bool no_ceilings_ = false;
  std::string ceilings_;

  /// --ceilings, else $TFBENCH_CEILINGS, else cached; --no-ceilings wins.
  bool apply_ceilings() {
    std::string mode = ceilings_.empty() ? impl::environment_value("TFBENCH_CEILINGS") : ceilings_;
    if (no_ceilings_ || mode == "off") {
      options_.ceilings = CeilingsMode::Off;
    } else if (mode.empty() || mode == "cached") {
      options_.ceilings = CeilingsMode::Cached;
    } else if (mode == "measure") {
      options_.ceilings = CeilingsMode::Measure;
    } else {
      std::cerr << (ceilings_.empty() ? "TFBENCH_CEILINGS" : "--ceilings")
                << ": expected cached, measure or off, "
                << "found '" << mode << "'\n";
      return false;
    }
    return true;
  }
  bool no_pin_ = false;
  std::string tuning_;

  /// Chooses the tuning the run's workers install (RunOptions::tuning_file, tune/tune_run.hpp), after
  /// the input is checked, so that bad input is reported before any calibration.
  void apply_tuning(const RunPlan& plan) {
    std::string mode = tuning_;
    if (mode.empty()) mode = impl::environment_value("TFBENCH_TUNING");
    if (mode.empty()) mode = "auto";
    if (mode == "off") return;
    if (mode == "auto" && !runs_on_host(plan)) return;  // no CPU backend to tune
    const tune::RunTuning tuning = tune::resolve_run_tuning(mode, std::cerr);
    options_.tuning_file = tuning.path;
    options_.tuning_sha256 = tuning.sha256;
  }
};

/// Loads every config, printing each issue; nullopt when any is invalid.
std::optional<std::vector<Config>> load_all(const std::vector<std::string>& paths) {
  LoadOptions load;
  load.max_threads = available_cpus();
  std::vector<Config> configs;
  bool ok = true;
  for (const auto& path : paths) {
    try {
      configs.push_back(load_config(path, load));
    } catch (const ConfigError& e) {
      for (const auto& issue : e.issues()) std::cerr << issue.to_string() << "\n";
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return configs;
}

class ListCommand final : public Command {
 public:
  bool sizes_memory_levels() const override { return true; }
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "list",
        "List the cases `tfbench run` would execute with the same options, one line each; a variant a "
        "worker would skip (asked of a worker of each thread configuration, started as run starts it) "
        "says why. Then the count and the estimated time of the run.\n"
        "Exit codes: 0 listed, 2 bad config or option.");
    selection_.add(sub, true);
    return sub;
  }
  int execute() override {
    RunOverrides overrides;
    if (!selection_.overrides(overrides)) return 2;
    const auto configs = load_all(selection_.configs);
    if (!configs) return 2;
    try {
      RunPlan plan = make_plan(*configs, overrides);
      for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
      VariantQuery query;
      query.configs = selection_.configs;
      query.filter = overrides.filter;
      for (const auto& note : ask_workers_for_variants(plan, query)) std::cerr << "note: " << note << "\n";
      // As `run` with its defaults would go: the ceilings cached, the workers pinned.
      const RunOptions defaults;
      print_plan(plan, std::cout,
                 estimate_run(plan, impl::ceilings_measured_by(defaults.ceilings, defaults.pin),
                              defaults.measure_ceilings()));
    } catch (const std::invalid_argument& e) {
      std::cerr << e.what() << "\n";
      return 2;
    }
    return 0;
  }

 private:
  SelectionOptions selection_;
};

class ValidateCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "validate",
        "Check config files against the schema and every family's parameters; each problem "
        "is printed as file:line:column: field: what was expected.\n"
        "Exit codes: 0 valid, 1 a config is invalid, 2 usage error.");
    sub->add_option("configs", configs_, "YAML config file(s)")->required()->type_name("CONFIG");
    return sub;
  }
  int execute() override {
    LoadOptions load;
    load.max_threads = available_cpus();
    int rc = 0;
    for (const auto& path : configs_) {
      try {
        const Config config = load_config(path, load);
        std::size_t points = 0;
        for (const auto& b : config.blocks) points += b.point_count();
        std::cout << path << ": ok (" << config.blocks.size() << " benchmark block(s), " << points
                  << " parameter point(s))\n";
      } catch (const ConfigError& e) {
        for (const auto& issue : e.issues()) std::cerr << issue.to_string() << "\n";
        std::cout << path << ": invalid (" << e.issues().size() << " problem(s))\n";
        rc = 1;
      }
    }
    return rc;
  }

 private:
  std::vector<std::string> configs_;
};

class WorkerCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand("worker", "internal: one worker process of `tfbench run`");
    sub->group("");  // hidden from --help
    sub->add_option("--message-fd", fd_, "file descriptor for messages to the parent")->required();
    sub->add_flag("--query-variants", query_,
                  "answer which variants of the configs this worker would skip, and exit (list, --dry-run)");
    sub->add_option("--space", space_, "the query's execution space");
    sub->add_option("--threads", query_args_.threads, "the query's thread count");
    sub->add_option("--filter", filter_, "the query's --filter");
    sub->add_option("--query-config", query_args_.configs, "a config of the query (repeated)");
    return sub;
  }
  int execute() override {
    if (!query_) return impl::worker_main(fd_);
    const auto space = parse_exec_space(space_);
    if (!space) return 2;
    query_args_.space = *space;
    if (!filter_.empty()) query_args_.filter = filter_;
    return impl::query_variants_main(fd_, query_args_);
  }

 private:
  int fd_ = 3;
  bool query_ = false;
  std::string space_ = "serial", filter_;
  impl::VariantQueryArgs query_args_;
};

}  // namespace

std::unique_ptr<Command> make_run_command(std::string command_line) {
  return std::make_unique<RunCommand>(std::move(command_line));
}
std::unique_ptr<Command> make_list_command() {
  return std::make_unique<ListCommand>();
}
std::unique_ptr<Command> make_validate_command() {
  return std::make_unique<ValidateCommand>();
}
std::unique_ptr<Command> make_worker_command() {
  return std::make_unique<WorkerCommand>();
}

}  // namespace tfbench::harness::cli
