#include "tfbench/harness/runner.hpp"

#include "run/environment.hpp"
#include "run/progress.hpp"
#include "run/protocol.hpp"
#include "run/spawn.hpp"
#include "run/supervisor.hpp"
#include "run/variant_query.hpp"
#include "tfbench/harness/build_info.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/sha256.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace tfbench::harness {

using impl::Hello;

int available_cpus() {
  return std::max(1, affinity_cpu_count());
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Device and inode, not the spelling: `x.yaml`, `./x.yaml` and a hard link are one file.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

std::string default_output_path() {
  namespace fs = std::filesystem;
  const std::string stem = "results/" + utc_now_compact() + "-" + host_name();
  std::string path = stem + ".h5";
  // A name being written by another run (same second, same host) is taken too.
  for (int k = 2; fs::exists(path) || fs::exists(path + ".lock"); ++k)
    path = stem + "-" + std::to_string(k) + ".h5";
  return path;
}

/// "while checking", ... for the phase a worker last announced.
std::string while_doing(const std::string& phase) {
  return phase == "check"     ? "while checking"
         : phase == "collect" ? "while collecting counts and metrics"
         : phase == "time"    ? "while timing"
                              : "before any variant began";
}

/// A case the parent stopped for exceeding its time limit.
struct TimedOut {
  std::size_t index = 0;
  std::optional<std::string> variant;  // the variant it was on, when the worker had said
  std::string phase;
  double limit_s = 0.0;
};

/// A case of a worker plan still to be run, with the variants not yet recorded.
struct PendingCase {
  std::size_t index = 0;
  std::vector<std::string> variants;
};

struct Tally {
  std::map<RowStatus, std::size_t> by_status;
  std::size_t verification_failures = 0;
  double overhead_s = 0.0;
  double startup_s = 0.0;
  double ceilings_s = 0.0;
  std::size_t workers = 0;
  bool failures() const {
    for (const auto& [status, n] : by_status) {
      if (is_failure(status) && n) return true;
    }
    return verification_failures > 0;
  }
  /// "3 ok", "1 skipped", ... in the order of the status names.
  std::vector<std::string> counts() const {
    std::map<std::string, std::size_t> named;
    for (const auto& [status, n] : by_status) named[name(status)] += n;
    std::vector<std::string> out;
    for (const auto& [text, n] : named) out.push_back(std::to_string(n) + " " + text);
    return out;
  }
  std::size_t rows() const {
    std::size_t n = 0;
    for (const auto& entry : by_status) n += entry.second;
    return n;
  }
};

class Session {
 public:
  Session(const RunOptions& options, const RunPlan& plan, ResultsWriter& writer, impl::Progress& progress,
          const impl::SignalWatch& signals, std::uint64_t seed)
      : options_(options),
        plan_(plan),
        writer_(writer),
        progress_(progress),
        signals_(signals),
        seed_(seed) {}

  void run() {
    for (const WorkerPlan& worker : plan_.workers) {
      if (interrupted()) break;
      run_worker_plan(worker);
    }
  }
  bool interrupted() const { return signals_.received() != 0; }
  const Tally& tally() const { return tally_; }

 private:
  const workloads::VariantInfo* find_variant(const CaseGroup& g, const std::string& name) const {
    for (const auto& v : g.variants) {
      if (v.name == name) return &v;
    }
    return nullptr;
  }

  /// Adds what the parent knows to a row: the case, its variant's facts (where the worker did not
  /// say), the worker it ran on and the case's settings.
  ResultRow identify(const WorkerPlan& w, const CaseGroup& g, ResultRow row) const {
    row.case_id = case_id(g, row.variant);
    row.group_id = g.group_id;
    row.family = std::string(g.family->name());
    const auto* info = find_variant(g, row.variant);
    if (info && row.variant_kind.empty()) {
      row.variant_kind = workloads::name(info->kind);
      row.provider = info->provider;
      row.strategy = info->strategy;
    }
    row.params = dump_json(Json(g.params));
    row.exec_space = name(w.space);
    row.threads = w.threads;
    row.kokkos_threads = hello_ ? hello_->kokkos_threads : 0;
    row.blas_threads = hello_ ? hello_->blas_threads : 0;
    row.threshold_pct = g.threshold_pct ? *g.threshold_pct : kNaN;
    row.worker_pid = current_pid_;
    row.case_timeout_s = case_time_limit(g);
    return row;
  }

  /// A row the parent records itself (the worker never reported it), with its status and why.
  ResultRow unreported_row(const WorkerPlan& w, const CaseGroup& g, const std::string& variant,
                           RowStatus status, const std::string& error) const {
    ResultRow row;
    row.variant = variant;
    row.status = status;
    row.error = error;
    return identify(w, g, std::move(row));
  }

  /// A row's share of the run's estimate (what estimate_run() counted for it).
  double estimated_seconds(const CaseGroup& g, const std::string& variant) const {
    const auto* info = find_variant(g, variant);
    return info ? expected_row_seconds(g, *info) : EstimateCosts{}.row_setup_s;
  }

  /// Writes rows (deriving statistics and peers first) and reports them.
  void record(const WorkerPlan& w, const CaseGroup& g, std::vector<ResultRow> rows) {
    const std::string now = utc_now_iso();
    for (auto& r : rows) r.finished_utc = now;
    derive_case_fields(rows, worker_row_.ceiling_gflops, worker_row_.ceiling_gbs);
    writer_.append_results(rows);
    for (const auto& r : rows) {
      ++tally_.by_status[r.status];
      if (std::isfinite(r.overhead_s)) tally_.overhead_s += r.overhead_s;
      progress_.done(r, estimated_seconds(g, r.variant));
    }
  }

  /// Records every pending variant of the given cases with one status and reason.
  void record_pending(const WorkerPlan& w, std::vector<PendingCase>& pending, RowStatus status,
                      const std::string& error) {
    for (const auto& p : pending) {
      std::vector<ResultRow> rows;
      for (const auto& v : p.variants) rows.push_back(unreported_row(w, w.groups[p.index], v, status, error));
      record(w, w.groups[p.index], std::move(rows));
    }
    pending.clear();
  }

  /// The worker was killed for exceeding its case's limit: the variant it was on (every variant of
  /// the case not yet recorded, if it had not said) is `timed_out`; a fresh worker goes on with the
  /// rest, this case's other variants included.
  void record_timeout(const WorkerPlan& w, std::vector<PendingCase>& pending, const TimedOut& t, pid_t pid) {
    const std::string limit = format_seconds(t.limit_s);
    auto it = std::find_if(pending.begin(), pending.end(),
                           [&](const PendingCase& p) { return p.index == t.index; });
    if (it == pending.end()) return;  // its rows arrived just before the kill
    const CaseGroup& g = w.groups[it->index];
    std::vector<std::string> culprits = it->variants;
    if (t.variant && std::count(it->variants.begin(), it->variants.end(), *t.variant))
      culprits = {*t.variant};
    std::vector<ResultRow> rows;
    for (const auto& v : culprits) {
      rows.push_back(unreported_row(w, g, v, RowStatus::TimedOut,
                                    "exceeded the case time limit of " + limit + " " + while_doing(t.phase) +
                                        " (worker " + std::to_string(pid) +
                                        " killed; a case that is only slow needs a larger case_timeout)"));
      it->variants.erase(std::remove(it->variants.begin(), it->variants.end(), v), it->variants.end());
    }
    record(w, g, std::move(rows));
    const std::string what = culprits.size() == 1 ? case_id(g, culprits.front()) : g.group_id;
    if (it->variants.empty()) pending.erase(it);
    progress_.note("worker " + std::to_string(pid) + ": " + what + " exceeded the case time limit of " +
                   limit + " " + while_doing(t.phase) + ": killed" +
                   (pending.empty() ? "" : "; starting a fresh worker for the remaining cases"));
  }

  void run_worker_plan(const WorkerPlan& w) {
    std::vector<PendingCase> pending;
    for (std::size_t i = 0; i < w.groups.size(); ++i) {
      PendingCase p;
      p.index = i;
      for (const auto& v : w.groups[i].variants) p.variants.push_back(v.name);
      pending.push_back(std::move(p));
    }
    std::optional<workloads::Ceilings> ceilings;
    const std::string label = "threads=" + std::to_string(w.threads) + " " + name(w.space);
    impl::WorkerEnvironmentOptions env_options;
    env_options.threads = w.threads;
    env_options.omp_proc_bind = options_.omp_proc_bind;
    env_options.omp_places = options_.omp_places;
    env_options.pin = options_.pin;
    const auto environment = impl::worker_environment(env_options);
    const std::string exe = impl::self_executable();

    while (!pending.empty() && !interrupted()) {
      impl::WorkerJob job;
      job.space = w.space;
      job.threads = w.threads;
      job.seed = seed_;
      job.ceilings = ceilings;
      job.measure_ceilings = options_.measure_ceilings;
      for (const auto& p : pending) {
        const CaseGroup& g = w.groups[p.index];
        impl::JobCase c;
        c.index = p.index;
        c.family = std::string(g.family->name());
        c.params = g.params;
        c.group_id = g.group_id;
        c.variants = p.variants;
        c.repetitions = g.repetitions;
        c.min_time = g.min_time;
        job.cases.push_back(std::move(c));
      }
      hello_.reset();
      current_.reset();
      current_phase_.clear();
      worker_row_ = WorkerRow{};
      worker_row_.threads = w.threads;
      worker_row_.exec_space = name(w.space);
      worker_row_.blas_threads_requested = w.threads;
      if (ceilings) {
        worker_row_.ceiling_gflops = ceilings->gflops;
        worker_row_.ceiling_gbs = ceilings->gbs;
      }
      const auto started = Clock::now();
      const impl::WorkerProcess process = impl::spawn_worker(exe, dump_json(Json(job)), environment);
      current_pid_ = process.pid;
      worker_row_.pid = process.pid;
      ++tally_.workers;
      progress_.note("worker " + std::to_string(process.pid) + ": " + label +
                     (ceilings ? " (restarted)" : ""));
      progress_.activity(label + ": starting worker");
      std::optional<std::size_t> worker_index;
      // The worker runs its cases in job order, which is the order of `pending`: once it is ready,
      // the case it is on is pending.front(), since the later of its start and the last rows message.
      std::optional<Clock::time_point> case_started;
      std::optional<TimedOut> timed_out;

      auto on_message = [&](const Json& m) {
        const auto kind = m.at("msg").get<std::string>();
        if (kind == "hello") {
          hello_ = m.get<Hello>();
          worker_row_.kokkos_threads = hello_->kokkos_threads;
          worker_row_.blas_threads = hello_->blas_threads;
          worker_row_.affinity_cpus = hello_->affinity_cpus;
          worker_row_.omp_proc_bind = hello_->omp_proc_bind;
          worker_row_.omp_places = hello_->omp_places;
          worker_row_.binding = hello_->binding;
          worker_row_.startup_s = seconds_since(started);
          tally_.startup_s += worker_row_.startup_s;
          if (!hello_->verified) worker_row_.exit = "verification failed: " + hello_->why;
          worker_index = writer_.append_worker(worker_row_);
          progress_.activity(label + (hello_->verified ? ": measuring ceilings" : ": verification failed"));
        } else if (kind == "ceilings") {
          worker_row_.ceiling_gflops = m.at("gflops").get<double>();
          worker_row_.ceiling_gbs = m.at("gbs").get<double>();
          worker_row_.ceilings_s = m.at("seconds").get<double>();
          tally_.ceilings_s += worker_row_.ceilings_s;
          ceilings = workloads::Ceilings{worker_row_.ceiling_gflops, worker_row_.ceiling_gbs};
          if (worker_index) writer_.update_worker(*worker_index, worker_row_);
          if (!job.ceilings) progress_.worker_ready(expected_worker_seconds(options_.measure_ceilings));
          case_started = Clock::now();
        } else if (kind == "begin") {
          current_ = std::make_pair(m.at("case").get<std::size_t>(), m.at("variant").get<std::string>());
          current_phase_ = m.at("phase").get<std::string>();
          if (current_->first < w.groups.size()) {
            progress_.activity(label + " " + case_id(w.groups[current_->first], current_->second) + " (" +
                               (current_phase_ == "check"  ? "checking"
                                : current_phase_ == "time" ? "timing"
                                                           : "collecting") +
                               ")");
          }
        } else if (kind == "rows") {
          const auto index = m.at("case").get<std::size_t>();
          if (index >= w.groups.size()) return;
          const CaseGroup& g = w.groups[index];
          std::vector<ResultRow> rows;
          for (auto& row : m.at("rows").get<std::vector<ResultRow>>())
            rows.push_back(identify(w, g, std::move(row)));
          record(w, g, std::move(rows));
          pending.erase(std::remove_if(pending.begin(), pending.end(),
                                       [&](const PendingCase& p) { return p.index == index; }),
                        pending.end());
          current_.reset();
          case_started = Clock::now();
        }
      };
      auto on_tick = [&] {
        progress_.tick();
        if (timed_out || !case_started || pending.empty()) return;
        const double limit = case_time_limit(w.groups[pending.front().index]);
        if (limit <= 0.0 || seconds_since(*case_started) <= limit) return;
        TimedOut t;
        t.index = pending.front().index;
        t.limit_s = limit;
        if (current_ && current_->first == t.index) {
          t.variant = current_->second;
          t.phase = current_phase_;
        }
        timed_out = t;
        // SIGKILL: a hung variant (a busy loop, a deadlock) need not answer SIGTERM. Supervision goes
        // on until the pipe closes, so rows the worker sent just before are still recorded.
        kill(process.pid, SIGKILL);
      };
      const impl::ProcessEnd end =
          impl::supervise(process, signals_, on_message, on_tick, options_.interactive ? 200 : 1000);
      const std::string how = impl::describe_wait_status(end.wait_status);

      if (!worker_index) {
        // Died (or was stopped) before reporting: record the worker as far as we know it.
        worker_row_.exit = end.interrupt_signal ? "interrupted" : how;
        worker_index = writer_.append_worker(worker_row_);
      }
      if (end.interrupt_signal) {
        worker_row_.exit = "interrupted (" + impl::signal_name(end.interrupt_signal) + ")";
        writer_.update_worker(*worker_index, worker_row_);
        if (current_) {
          // The case in progress is recorded as interrupted; cases never started are not rows.
          auto it = std::find_if(pending.begin(), pending.end(),
                                 [&](const PendingCase& p) { return p.index == current_->first; });
          if (it != pending.end()) {
            std::vector<PendingCase> one = {*it};
            record_pending(w, one, RowStatus::Interrupted,
                           "interrupted by " + impl::signal_name(end.interrupt_signal));
          }
        }
        return;
      }
      if (!hello_) {
        ++tally_.verification_failures;
        // It died starting Kokkos or the BLAS library (before its first message): say so, and
        // where to look, rather than point at messages that may not exist.
        const std::string why = "worker " + std::to_string(process.pid) +
                                " died before reporting its verification (" + how +
                                ") while starting Kokkos and the BLAS library with " +
                                std::to_string(w.threads) + " thread(s); anything it printed went to stderr";
        progress_.note(why);
        record_pending(w, pending, RowStatus::Error, why);
      } else if (!hello_->verified) {
        ++tally_.verification_failures;
        writer_.update_worker(*worker_index, worker_row_);
        progress_.note("worker " + std::to_string(process.pid) + ": " + label +
                       ": verification failed: " + hello_->why);
        record_pending(w, pending, RowStatus::Error, "verification failed: " + hello_->why);
      } else if (timed_out) {
        worker_row_.exit = "killed: case time limit of " + format_seconds(timed_out->limit_s) + " exceeded";
        writer_.update_worker(*worker_index, worker_row_);
        record_timeout(w, pending, *timed_out, process.pid);
      } else if (pending.empty() && how == "ok") {
        worker_row_.exit = "ok";
        writer_.update_worker(*worker_index, worker_row_);
      } else if (current_) {
        // The worker died inside a case: that variant is the culprit; a fresh worker goes on
        // with everything else, this case's other variants included.
        worker_row_.exit = how;
        writer_.update_worker(*worker_index, worker_row_);
        const std::string doing = while_doing(current_phase_);
        auto it = std::find_if(pending.begin(), pending.end(),
                               [&](const PendingCase& p) { return p.index == current_->first; });
        if (it != pending.end()) {
          const CaseGroup& g = w.groups[it->index];
          record(w, g,
                 {unreported_row(w, g, current_->second, RowStatus::Crashed,
                                 how + " " + doing + " (worker " + std::to_string(process.pid) + ")")});
          it->variants.erase(std::remove(it->variants.begin(), it->variants.end(), current_->second),
                             it->variants.end());
          if (it->variants.empty()) pending.erase(it);
        }
        progress_.note("worker " + std::to_string(process.pid) + ": " + how + " " + doing + " " +
                       case_id(w.groups[current_->first], current_->second) +
                       (pending.empty() ? "" : "; starting a fresh worker for the remaining cases"));
      } else {
        worker_row_.exit = how;
        writer_.update_worker(*worker_index, worker_row_);
        record_pending(w, pending, RowStatus::Error,
                       "worker " + std::to_string(process.pid) + " ended (" + how + ") outside any case");
      }
    }
  }

  const RunOptions& options_;
  const RunPlan& plan_;
  ResultsWriter& writer_;
  impl::Progress& progress_;
  const impl::SignalWatch& signals_;
  std::uint64_t seed_;
  Tally tally_;
  // State of the worker process being supervised.
  std::optional<Hello> hello_;
  std::optional<std::pair<std::size_t, std::string>> current_;
  std::string current_phase_;
  WorkerRow worker_row_;
  std::int64_t current_pid_ = 0;
};

RunInfo make_run_info(const RunOptions& options, const std::vector<Config>& configs, std::uint64_t seed) {
  RunInfo info;
  const BuildInfo& build = build_info();
  info.start_utc = utc_now_iso();
  info.hostname = host_name();
  info.run_id = utc_now_compact() + "-" + info.hostname + "-" + std::to_string(getpid());
  info.status = "running";
  info.tfbench_version = build.version;
  info.git_revision = build.git_revision;
  info.git_dirty = build.git_dirty;
  info.command_line = options.command_line;
  std::string texts;
  for (const auto& c : configs) {
    info.config_paths += (info.config_paths.empty() ? "" : ";") + c.path;
    info.config_texts.push_back(c.text);
    texts += c.text;
  }
  info.config_sha256 = sha256_hex(texts);
  info.cpu_model = cpu_model();
  info.online_cpus = online_cpu_count();
  info.compiler = build.compiler;
  info.build_type = build.build_type;
  info.build_flags = build.build_flags;
  info.kokkos_version = build.kokkos_version;
  info.kokkos_kernels_version = build.kokkos_kernels_version;
  std::vector<std::string> spaces;
  for (ExecSpaceKind k : enabled_exec_spaces()) spaces.emplace_back(name(k));
  info.kokkos_spaces = join(spaces, ",");
  const BlasInfo blas = blas_info();
  info.blas_vendor = blas.vendor;
  info.blas_config = blas.config;
  info.blas_threading = blas.threading;
  info.seed = static_cast<std::int64_t>(seed);
  info.repetitions_default = options.overrides.repetitions.value_or(BuiltinDefaults::repetitions);
  info.min_time_default = options.overrides.min_time.value_or(BuiltinDefaults::min_time);
  // Injected faults and delays change what is measured: the file must say so.
  if (const char* faults = std::getenv("TFBENCH_FAULT_INJECT")) info.fault_inject = faults;
  return info;
}

}  // namespace

int run_benchmarks(const RunOptions& options, std::ostream& out, std::ostream& err) {
  LoadOptions load;
  load.max_threads = available_cpus();
  std::vector<Config> configs;
  try {
    for (const auto& path : options.configs) configs.push_back(load_config(path, load));
    FaultPlan::from_environment();  // a malformed TFBENCH_FAULT_INJECT is an input error, caught here
  } catch (const ConfigError& e) {
    for (const auto& issue : e.issues()) err << issue.to_string() << '\n';
    return kRunBadInput;
  } catch (const std::invalid_argument& e) {
    err << "tfbench run: " << e.what() << '\n';
    return kRunBadInput;
  }
  RunPlan plan;
  try {
    plan = make_plan(configs, options.overrides);
  } catch (const std::invalid_argument& e) {
    err << "tfbench run: " << e.what() << '\n';
    return kRunBadInput;
  }
  for (const auto& note : plan.notes) err << "note: " << note << '\n';
  if (plan.row_count() == 0) {
    err << "tfbench run: nothing to run" << (options.overrides.filter ? " (--filter matched no case)" : "")
        << '\n';
    return kRunBadInput;
  }
  std::uint64_t seed = BuiltinDefaults::seed;
  if (options.seed) {
    seed = *options.seed;
  } else {
    for (const auto& c : configs) {
      if (c.seed) {
        seed = *c.seed;
        break;
      }
    }
  }
  const std::string path = options.out ? *options.out : default_output_path();
  if (options.dry_run) {
    VariantQuery query;
    query.configs = options.configs;
    query.filter = options.overrides.filter;
    query.omp_proc_bind = options.omp_proc_bind;
    query.omp_places = options.omp_places;
    for (const auto& note : ask_workers_for_variants(plan, query)) err << "note: " << note << '\n';
    print_plan(plan, out, options.measure_ceilings);
    out << "dry run: nothing measured; a run would write " << path << "\n";
    return kRunOk;
  }

  for (const auto& config : options.configs) {
    if (same_file(config, path)) {
      err << "tfbench run: the output " << path << " is the config " << config
          << "; choose another output file\n";
      return kRunBadInput;
    }
  }

  impl::SignalWatch signals;
  std::optional<ResultsWriter> writer;
  RunInfo info = make_run_info(options, configs, seed);
  try {
    writer.emplace(path, options.overwrite, options.command_line);
    if (!writer->note().empty()) err << "tfbench run: note: " << writer->note() << '\n';
    writer->begin_run(info);
  } catch (const ResultsWriteError& e) {
    err << "tfbench run: " << e.what() << '\n';
    return kRunWriteFailed;
  } catch (const ResultsError& e) {
    err << "tfbench run: " << e.what() << '\n';
    return kRunBadInput;
  }
  const RunEstimate estimate = estimate_run(plan, options.measure_ceilings);
  if (!info.fault_inject.empty()) {
    err << "tfbench run: note: TFBENCH_FAULT_INJECT='" << info.fault_inject
        << "' injects faults into the workers; recorded in the run's fault_inject attribute\n";
  }
  impl::Progress progress(out, options.interactive ? &err : nullptr, plan.row_count(), estimate.total_s());
  out << "tfbench run: " << plan.row_count() << " case(s) in " << plan.workers.size()
      << " thread configuration(s); results go to " << path << '\n';
  out << "estimated time: " << describe(estimate) << '\n';

  Session session(options, plan, *writer, progress, signals, seed);
  std::string status = "complete";
  int rc = kRunOk;
  bool write_failed = false;
  try {
    session.run();
    if (session.interrupted()) status = "interrupted";
  } catch (const ResultsWriteError& e) {
    // The file could not be written (a full disk, ...): it still holds every row printed above.
    progress.finish();
    err << "tfbench run: the run stopped: " << e.what() << '\n';
    status = "failed";
    write_failed = true;
  } catch (const std::exception& e) {
    progress.finish();
    err << "tfbench run: the run failed: " << e.what() << '\n';
    status = "failed";
  }
  try {
    writer->finish_run(status, utc_now_iso());  // may succeed after a failure, if space came back
  } catch (const std::exception& e) {
    if (!write_failed) err << "tfbench run: could not finish " << path << ": " << e.what() << '\n';
    status = "failed";
    write_failed = true;
  }
  writer->close();
  progress.finish();

  const Tally& t = session.tally();
  const std::vector<std::string> counts = t.counts();
  const std::size_t rows = t.rows();
  out << "\ntfbench run: " << status << ": " << rows << " row(s)"
      << (counts.empty() ? "" : " (" + join(counts) + ")") << " in " << format_seconds(progress.elapsed())
      << '\n';
  out << "overhead: " << t.workers << " worker start(s) " << format_seconds(t.startup_s) << ", ceilings "
      << format_seconds(t.ceilings_s) << ", per-case set-up/check/calibration "
      << format_seconds(t.overhead_s) << '\n';
  out << "results: " << path << "\n  tfbench report " << path << '\n';
  if (write_failed) return kRunWriteFailed;
  if (status == "interrupted") return kRunInterrupted;
  if (status == "failed") return kRunFailures;
  if (t.failures()) rc = kRunFailures;
  return rc;
}

std::vector<VerifiedWorker> verify_workers(const std::vector<int>& threads,
                                           const std::optional<std::string>& proc_bind,
                                           const std::optional<std::string>& places) {
  std::vector<VerifiedWorker> out;
  impl::SignalWatch signals;
  const std::string exe = impl::self_executable();
  for (int t : threads) {
    VerifiedWorker v;
    v.threads = t;
    impl::WorkerJob job;
    job.space = default_device_space();
    job.threads = t;
    job.verify_only = true;
    impl::WorkerEnvironmentOptions env;
    env.threads = t;
    env.omp_proc_bind = proc_bind;
    env.omp_places = places;
    const auto process = impl::spawn_worker(exe, dump_json(Json(job)), impl::worker_environment(env));
    bool got = false;
    const auto end = impl::supervise(
        process, signals,
        [&](const Json& m) {
          if (m.at("msg").get<std::string>() != "hello") return;
          const auto h = m.get<Hello>();
          got = true;
          v.exec_space = h.exec_space;
          v.kokkos_threads = h.kokkos_threads;
          v.blas_threads = h.blas_threads;
          v.affinity_cpus = h.affinity_cpus;
          v.omp_proc_bind = h.omp_proc_bind;
          v.verified = h.verified;
          v.why = h.why;
        },
        [] {}, 1000);
    if (!got) v.why = "worker failed: " + impl::describe_wait_status(end.wait_status);
    out.push_back(v);
    if (end.interrupt_signal) break;
  }
  return out;
}

}  // namespace tfbench::harness
