#include "run/plan_runner.hpp"

#include "run/ceilings_cache.hpp"
#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/spawn.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/text.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <utility>

namespace tfbench::harness::impl {

bool Tally::failures() const {
  for (const auto& [status, n] : by_status) {
    if (is_failure(status) && n) return true;
  }
  return verification_failures > 0;
}

std::vector<std::string> Tally::counts() const {
  std::map<std::string, std::size_t> named;
  for (const auto& [status, n] : by_status) named[name(status)] += n;
  std::vector<std::string> out;
  for (const auto& [text, n] : named) out.push_back(std::to_string(n) + " " + text);
  return out;
}

std::size_t Tally::rows() const {
  return std::accumulate(by_status.begin(), by_status.end(), std::size_t{0},
                         [](std::size_t n, const auto& entry) { return n + entry.second; });
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
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

/// One worker process, from its start to its end.
struct Attempt {
  WorkerJob job;
  pid_t pid = 0;
  Clock::time_point started;
  std::optional<Hello> hello;
  WorkerRow row;                                               // its row of the `workers` table
  std::optional<std::size_t> row_index;                        // where that row is, once written
  std::optional<std::pair<std::size_t, std::string>> current;  // the case and variant it last began
  std::string phase;                                           // ... and in which phase
  // The worker runs its cases in job order, which is the order of `pending`: once it is ready, the
  // case it is on is pending.front(), since the later of its start and the last rows message.
  std::optional<Clock::time_point> case_started;
  std::optional<TimedOut> timed_out;
};

/// How a worker process ended, as far as its rows are concerned.
enum class WorkerEnd {
  Interrupted,         // the run got SIGINT/SIGTERM
  DiedStarting,        // before its first message
  VerificationFailed,  // its threads or affinity were not what was asked
  TimedOut,            // killed by the parent at a case's time limit
  Finished,            // every case reported, exit 0
  DiedInCase,          // crashed inside a variant it had announced
  EndedOutsideCase,    // ended early between cases
};

/// The worker processes of one worker plan: a first one, then a fresh one after each that ended
/// with cases left, until every case is recorded or the run is interrupted.
class WorkerPlanRun {
 public:
  WorkerPlanRun(const RunOptions& options, const WorkerPlan& w, std::uint64_t seed, ResultsWriter& writer,
                Progress& progress, const SignalWatch& signals, Tally& tally)
      : options_(options),
        w_(w),
        seed_(seed),
        writer_(writer),
        progress_(progress),
        signals_(signals),
        tally_(tally),
        label_("threads=" + std::to_string(w.threads) + " " + name(w.space)) {
    for (std::size_t i = 0; i < w.groups.size(); ++i) {
      PendingCase p;
      p.index = i;
      for (const auto& v : w.groups[i].variants) p.variants.push_back(v.name);
      pending_.push_back(std::move(p));
    }
    WorkerEnvironmentOptions env;
    env.threads = w.threads;
    env.omp_proc_bind = options.omp_proc_bind;
    env.omp_places = options.omp_places;
    env.pin = options.pin;
    env.tuning_file = options.tuning_file;
    environment_ = worker_environment(env);
    if (options.measure_ceilings(w.space)) {
      ceilings_key_ = ceilings_cache_key();
      ceilings_path_ = default_ceilings_cache_path(ceilings_key_);
      look_up_ceilings();
    }
  }

  void run() {
    const std::string exe = self_executable();
    while (!pending_.empty() && signals_.received() == 0) {
      const WorkerProcess process = start_worker(exe);
      const ProcessEnd end = supervise(
          process, signals_, [this](const Json& m) { on_message(m); }, [this] { on_tick(); },
          options_.interactive ? 200 : 1000);
      if (!record_end(end)) return;
    }
  }

 private:
  // --- Starting a worker ---------------------------------------------------------------------

  /// The job of a fresh worker: every pending case, the ceilings of an earlier worker if any, and for
  /// a worker of several threads the cached one-thread ceilings (their ceilings measured beside).
  WorkerJob job() {
    WorkerJob job;
    job.space = w_.space;
    job.threads = w_.threads;
    job.seed = seed_;
    job.ceilings = ceilings_;
    job.measure_ceilings = options_.measure_ceilings(w_.space);
    if (const workloads::Ceilings* one = one_thread_ceilings()) job.one_thread_ceilings = *one;
    for (const auto& p : pending_) {
      const CaseGroup& g = w_.groups[p.index];
      JobCase c;
      c.index = p.index;
      c.family = std::string(g.family->name());
      c.params = g.params;
      c.group_id = g.group_id;
      for (const auto& v : p.variants) c.variants.push_back(*find_variant(g, v));
      c.repetitions = g.repetitions;
      c.min_time = g.min_time;
      job.cases.push_back(std::move(c));
    }
    return job;
  }

  WorkerProcess start_worker(const std::string& exe) {
    a_ = Attempt{};
    a_.job = job();
    a_.row.threads = w_.threads;
    a_.row.exec_space = name(w_.space);
    a_.row.blas_threads_requested = w_.threads;
    if (ceilings_) fill_worker_ceilings(a_.row, *ceilings_, measured_here() ? "reused" : ceilings_source_);
    a_.started = Clock::now();
    const WorkerProcess process = spawn_worker(exe, dump_json(Json(a_.job)), environment_);
    a_.pid = process.pid;
    a_.row.pid = process.pid;
    ++tally_.workers;
    progress_.note("worker " + std::to_string(process.pid) + ": " + label_ +
                   (a_.job.ceilings && measured_here() ? " (restarted)" : ""));
    progress_.activity(label_ + ": starting worker");
    return process;
  }

  // --- While it runs -------------------------------------------------------------------------

  void on_message(const Json& m) {
    const auto kind = m.at("msg").get<std::string>();
    if (kind == "hello") {
      on_hello(m.get<Hello>());
    } else if (kind == "ceilings") {
      on_ceilings(m);
    } else if (kind == "begin") {
      on_begin(m);
    } else if (kind == "rows") {
      on_rows(m);
    }
  }

  void on_hello(Hello hello) {
    a_.hello = std::move(hello);
    const Hello& h = *a_.hello;
    a_.row.kokkos_threads = h.kokkos_threads;
    a_.row.blas_threads = h.blas_threads;
    a_.row.affinity_cpus = h.affinity_cpus;
    a_.row.omp_proc_bind = h.omp_proc_bind;
    a_.row.omp_places = h.omp_places;
    a_.row.binding = h.binding;
    a_.row.blas_core = h.blas_core;
    a_.row.device = h.device;
    a_.row.startup_s = seconds_since(a_.started);
    tally_.startup_s += a_.row.startup_s;
    if (!h.verified) a_.row.exit = "verification failed: " + h.why;
    a_.row_index = writer_.append_worker(a_.row);
    progress_.activity(label_ + (h.verified ? ": measuring ceilings" : ": verification failed"));
  }

  void on_ceilings(const Json& m) {
    a_.row.ceilings_s = m.at("seconds").get<double>();
    tally_.ceilings_s += a_.row.ceilings_s;
    if (!a_.job.ceilings) {
      ceilings_ = m.at("ceilings").get<workloads::Ceilings>();
      ceilings_source_ = options_.measure_ceilings(w_.space) ? "measured" : "off";
      if (options_.measure_ceilings(w_.space)) {
        // Kept before remember_ceilings takes the cache's best of each: what this run's machine did.
        a_.row.ceilings_measured = dump_json(Json(*ceilings_));
        remember_ceilings(a_.row.ceilings_s);
      }
      fill_worker_ceilings(a_.row, *ceilings_, ceilings_source_);
    }
    if (a_.row_index) writer_.update_worker(*a_.row_index, a_.row);
    if (!a_.job.ceilings)
      progress_.worker_ready(expected_worker_seconds(options_.measure_ceilings(w_.space)));
    a_.case_started = Clock::now();
  }

  void on_begin(const Json& m) {
    a_.current = std::make_pair(m.at("case").get<std::size_t>(), m.at("variant").get<std::string>());
    a_.phase = m.at("phase").get<std::string>();
    if (a_.current->first >= w_.groups.size()) return;
    progress_.activity(label_ + " " + case_id(w_.groups[a_.current->first], a_.current->second) + " (" +
                       (a_.phase == "check"  ? "checking"
                        : a_.phase == "time" ? "timing"
                                             : "collecting") +
                       ")");
  }

  void on_rows(const Json& m) {
    const auto index = m.at("case").get<std::size_t>();
    if (index >= w_.groups.size()) return;
    const CaseGroup& g = w_.groups[index];
    std::vector<ResultRow> rows;
    for (auto& row : m.at("rows").get<std::vector<ResultRow>>()) rows.push_back(identify(g, std::move(row)));
    record(g, std::move(rows));
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                  [&](const PendingCase& p) { return p.index == index; }),
                   pending_.end());
    a_.current.reset();
    a_.case_started = Clock::now();
  }

  /// Kills the worker once its case runs past the case's time limit.
  void on_tick() {
    progress_.tick();
    if (a_.timed_out || !a_.case_started || pending_.empty()) return;
    const double limit = case_time_limit(w_.groups[pending_.front().index]);
    if (limit <= 0.0 || seconds_since(*a_.case_started) <= limit) return;
    TimedOut t;
    t.index = pending_.front().index;
    t.limit_s = limit;
    if (a_.current && a_.current->first == t.index) {
      t.variant = a_.current->second;
      t.phase = a_.phase;
    }
    a_.timed_out = t;
    // SIGKILL: a hung variant (a busy loop, a deadlock) need not answer SIGTERM. Supervision goes on
    // until the pipe closes, so rows the worker sent just before are still recorded.
    kill(a_.pid, SIGKILL);
  }

  // --- Rows ----------------------------------------------------------------------------------

  const workloads::VariantInfo* find_variant(const CaseGroup& g, const std::string& variant) const {
    for (const auto& v : g.variants) {
      if (v.name == variant) return &v;
    }
    return nullptr;
  }

  /// Adds what the parent knows to a row: the case, its variant's facts (as the plan has them from
  /// the worker's dry query), the worker it ran on and the case's settings.
  ResultRow identify(const CaseGroup& g, ResultRow row) const {
    row.case_id = case_id(g, row.variant);
    row.group_id = g.group_id;
    row.family = std::string(g.family->name());
    const auto* info = find_variant(g, row.variant);
    if (info) {
      row.variant_kind = workloads::name(info->kind);
      row.provider = info->provider;
      row.strategy = info->strategy;
    }
    row.params = dump_json(Json(g.params));
    row.exec_space = name(w_.space);
    row.threads = w_.threads;
    row.kokkos_threads = a_.hello ? a_.hello->kokkos_threads : 0;
    row.blas_threads = a_.hello ? a_.hello->blas_threads : 0;
    row.threshold_pct = g.threshold_pct ? *g.threshold_pct : kNaN;
    row.worker_pid = a_.pid;
    row.case_timeout_s = case_time_limit(g);
    return row;
  }

  /// A row the parent records itself (the worker never reported it), with its status and why.
  ResultRow unreported_row(const CaseGroup& g, const std::string& variant, RowStatus status,
                           const std::string& error) const {
    ResultRow row;
    row.variant = variant;
    row.status = status;
    row.error = error;
    return identify(g, std::move(row));
  }

  /// A row's share of the run's estimate (what estimate_run() counted for it).
  double estimated_seconds(const CaseGroup& g, const std::string& variant) const {
    const auto* info = find_variant(g, variant);
    return info ? expected_row_seconds(g, *info) : EstimateCosts{}.row_setup_s;
  }

  /// Writes rows (deriving statistics and peers first) and reports them.
  void record(const CaseGroup& g, std::vector<ResultRow> rows) {
    const std::string now = utc_now_iso();
    for (auto& r : rows) r.finished_utc = now;
    const bool roofline = ceilings_source_ != "off" && ceilings_;
    derive_case_fields(rows, roofline ? &*ceilings_ : nullptr, roofline ? one_thread_ceilings() : nullptr);
    writer_.append_results(rows);
    for (const auto& r : rows) {
      ++tally_.by_status[r.status];
      if (std::isfinite(r.overhead_s)) tally_.overhead_s += r.overhead_s;
      progress_.done(r, estimated_seconds(g, r.variant));
    }
  }

  /// Records every pending variant of the given cases with one status and reason.
  void record_pending(std::vector<PendingCase>& pending, RowStatus status, const std::string& error) {
    for (const auto& p : pending) {
      std::vector<ResultRow> rows;
      for (const auto& v : p.variants) rows.push_back(unreported_row(w_.groups[p.index], v, status, error));
      record(w_.groups[p.index], std::move(rows));
    }
    pending.clear();
  }

  /// Takes `variant` of pending case `it` off the list (and the case, once it has none left).
  void settle(std::vector<PendingCase>::iterator it, const std::string& variant) {
    it->variants.erase(std::remove(it->variants.begin(), it->variants.end(), variant), it->variants.end());
    if (it->variants.empty()) pending_.erase(it);
  }

  std::vector<PendingCase>::iterator pending_case(std::size_t index) {
    return std::find_if(pending_.begin(), pending_.end(),
                        [&](const PendingCase& p) { return p.index == index; });
  }

  void update_worker_exit(const std::string& exit) {
    a_.row.exit = exit;
    writer_.update_worker(*a_.row_index, a_.row);
  }

  // --- When it ends --------------------------------------------------------------------------

  WorkerEnd classify(const ProcessEnd& end, const std::string& how) const {
    if (end.interrupt_signal) return WorkerEnd::Interrupted;
    if (!a_.hello) return WorkerEnd::DiedStarting;
    if (!a_.hello->verified) return WorkerEnd::VerificationFailed;
    if (a_.timed_out) return WorkerEnd::TimedOut;
    if (pending_.empty() && how == "ok") return WorkerEnd::Finished;
    if (a_.current) return WorkerEnd::DiedInCase;
    return WorkerEnd::EndedOutsideCase;
  }

  /// Records how the worker ended and what it left unfinished; false: the run was interrupted.
  bool record_end(const ProcessEnd& end) {
    const std::string how = describe_wait_status(end.wait_status);
    if (!a_.row_index) {
      // Died (or was stopped) before reporting: record the worker as far as we know it.
      a_.row.exit = end.interrupt_signal ? "interrupted" : how;
      a_.row_index = writer_.append_worker(a_.row);
    }
    switch (classify(end, how)) {
      case WorkerEnd::Interrupted:
        record_interrupted(end.interrupt_signal);
        return false;
      case WorkerEnd::DiedStarting:
        record_died_starting(how);
        break;
      case WorkerEnd::VerificationFailed:
        record_unverified();
        break;
      case WorkerEnd::TimedOut:
        update_worker_exit("killed: case time limit of " + format_seconds(a_.timed_out->limit_s) +
                           " exceeded");
        record_timeout(*a_.timed_out);
        break;
      case WorkerEnd::Finished:
        update_worker_exit("ok");
        break;
      case WorkerEnd::DiedInCase:
        update_worker_exit(how);
        record_crash(how);
        break;
      case WorkerEnd::EndedOutsideCase:
        update_worker_exit(how);
        record_pending(pending_, RowStatus::Error,
                       "worker " + std::to_string(a_.pid) + " ended (" + how + ") outside any case");
        break;
    }
    return true;
  }

  /// The case in progress is recorded as interrupted; cases never started are not rows.
  void record_interrupted(int signal) {
    update_worker_exit("interrupted (" + signal_name(signal) + ")");
    if (!a_.current) return;
    const auto it = pending_case(a_.current->first);
    if (it == pending_.end()) return;
    std::vector<PendingCase> one = {*it};
    record_pending(one, RowStatus::Interrupted, "interrupted by " + signal_name(signal));
  }

  /// It died starting Kokkos or the BLAS library (before its first message): say so, and where to
  /// look, rather than point at messages that may not exist.
  void record_died_starting(const std::string& how) {
    ++tally_.verification_failures;
    const std::string why = "worker " + std::to_string(a_.pid) + " died before reporting its verification (" +
                            how + ") while starting Kokkos and the BLAS library with " +
                            std::to_string(w_.threads) + " thread(s); anything it printed went to stderr";
    progress_.note(why);
    record_pending(pending_, RowStatus::Error, why);
  }

  void record_unverified() {
    ++tally_.verification_failures;
    writer_.update_worker(*a_.row_index, a_.row);
    progress_.note("worker " + std::to_string(a_.pid) + ": " + label_ +
                   ": verification failed: " + a_.hello->why);
    record_pending(pending_, RowStatus::Error, "verification failed: " + a_.hello->why);
  }

  /// The worker was killed for exceeding its case's limit: the variant it was on (every variant of
  /// the case not yet recorded, if it had not said) is `timed_out`; a fresh worker goes on with the
  /// rest, this case's other variants included.
  void record_timeout(const TimedOut& t) {
    const std::string limit = format_seconds(t.limit_s);
    const auto it = pending_case(t.index);
    if (it == pending_.end()) return;  // its rows arrived just before the kill
    const CaseGroup& g = w_.groups[it->index];
    std::vector<std::string> culprits = it->variants;
    if (t.variant && std::count(it->variants.begin(), it->variants.end(), *t.variant))
      culprits = {*t.variant};
    std::vector<ResultRow> rows;
    for (const auto& v : culprits) {
      rows.push_back(unreported_row(g, v, RowStatus::TimedOut,
                                    "exceeded the case time limit of " + limit + " " + while_doing(t.phase) +
                                        " (worker " + std::to_string(a_.pid) +
                                        " killed; a case that is only slow needs a larger case_timeout)"));
      it->variants.erase(std::remove(it->variants.begin(), it->variants.end(), v), it->variants.end());
    }
    record(g, std::move(rows));
    const std::string what = culprits.size() == 1 ? case_id(g, culprits.front()) : g.group_id;
    if (it->variants.empty()) pending_.erase(it);
    progress_.note("worker " + std::to_string(a_.pid) + ": " + what + " exceeded the case time limit of " +
                   limit + " " + while_doing(t.phase) + ": killed" +
                   (pending_.empty() ? "" : "; starting a fresh worker for the remaining cases"));
  }

  /// The worker died inside a case: that variant is the culprit; a fresh worker goes on with
  /// everything else, this case's other variants included.
  void record_crash(const std::string& how) {
    const auto [index, variant] = *a_.current;
    const std::string doing = while_doing(a_.phase);
    const auto it = pending_case(index);
    if (it != pending_.end()) {
      const CaseGroup& g = w_.groups[it->index];
      record(g, {unreported_row(g, variant, RowStatus::Crashed,
                                how + " " + doing + " (worker " + std::to_string(a_.pid) + ")")});
      settle(it, variant);
    }
    progress_.note("worker " + std::to_string(a_.pid) + ": " + how + " " + doing + " " +
                   case_id(w_.groups[index], variant) +
                   (pending_.empty() ? "" : "; starting a fresh worker for the remaining cases"));
  }

  // --- Ceilings -----------------------------------------------------------------------------

  /// --ceilings cached: this configuration's ceilings from the machine's cache, if it has them.
  void look_up_ceilings() {
    if (options_.ceilings != CeilingsMode::Cached) return;
    std::string why;
    const auto cached = read_cached_ceilings(ceilings_path_, ceilings_key_, ceilings_entry(), why);
    if (!cached) {
      if (!why.empty() && why.find(": absent") == std::string::npos)
        progress_.note(why + "; measuring again");
      return;
    }
    ceilings_ = cached->ceilings;
    ceilings_source_ = "cached " + ceilings_path_ + " (" + cached->measured_utc + ")";
    progress_.note(label_ + ": ceilings from " + ceilings_path_ + " (measured " + cached->measured_utc +
                   "; --ceilings measure measures again and keeps the best of each)");
  }

  /// Combines what this configuration's first worker measured with the cache's entry (the best of
  /// each ceiling, for this run's rows too) and stores it, unless the samples say something shared
  /// the CPUs and there is no earlier entry; a cache that cannot be written costs the next run a
  /// measurement, never this run's results.
  void remember_ceilings(double seconds) {
    const std::string noisy = workloads::noisy_ceiling(*ceilings_, noisy_ceiling_spread());
    progress_.note(label_ + ": ceilings measured in " + format_seconds(seconds) +
                   (noisy.empty() ? ""
                                  : "; warning: noisy (" + noisy +
                                        "); another process shares these CPUs, or unpinned threads "
                                        "share one (--no-pin)"));
    std::string why;
    const auto cached = read_cached_ceilings(ceilings_path_, ceilings_key_, ceilings_entry(), why);
    if (cached && !workloads::combinable(cached->ceilings, *ceilings_)) {
      progress_.note(label_ + ": the cached measurement of " + cached->measured_utc +
                     " was sized differently (caches or LLC ladder); this measurement replaces it");
    } else if (cached) {
      const workloads::Ceilings best = workloads::best_of(cached->ceilings, *ceilings_);
      const std::string lower =
          workloads::lower_ceilings(cached->ceilings, *ceilings_, workloads::kKeptCeilingShortfall);
      if (!lower.empty()) {
        progress_.note(label_ + ": measured " + lower + " than the cached measurement of " +
                       cached->measured_utc + "; the rows are taken against the best of each");
      }
      ceilings_ = best;
      ceilings_source_ = "measured, with the best of " + ceilings_path_ + " (" + cached->measured_utc + ")";
    } else if (!noisy.empty()) {
      progress_.note(label_ + ": noisy ceilings not cached");
      return;
    }
    try {
      store_cached_ceilings(ceilings_path_, ceilings_key_, ceilings_entry(), {*ceilings_, utc_now_iso()});
    } catch (const std::exception& e) {
      progress_.note(std::string("warning: ceilings not cached: ") + e.what());
    }
  }

  /// This configuration's ceilings were measured in this run (alone or with the cache's best).
  bool measured_here() const { return ceilings_source_.rfind("measured", 0) == 0; }

  /// A sample this far below the best of its ceiling means other work shared the CPUs:
  /// $TFBENCH_CEILINGS_SPREAD_LIMIT, else 0.3.
  static double noisy_ceiling_spread() {
    const std::string text = environment_value("TFBENCH_CEILINGS_SPREAD_LIMIT");
    char* end = nullptr;
    const double limit = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    return limit > 0 && end && *end == '\0' ? limit : 0.3;
  }

  CeilingsEntryKey ceilings_entry() const { return {w_.threads, options_.pin}; }

  /// For a worker of several threads, this machine's one-thread ceilings from the cache (a one-thread
  /// worker of this run or an earlier one stored them), read once: the rows' bound is then the
  /// smaller of one thread's and the worker's threads' plus their handoff. Null otherwise (as at one
  /// thread, or when the cache has none: the worker's threads alone bound the rows).
  const workloads::Ceilings* one_thread_ceilings() {
    if (w_.threads <= 1 || ceilings_path_.empty()) return nullptr;
    if (!one_thread_looked_up_) {
      one_thread_looked_up_ = true;
      std::string why;
      if (auto cached = read_cached_ceilings(ceilings_path_, ceilings_key_, {1, options_.pin}, why))
        one_thread_ = std::move(cached->ceilings);
      if (!one_thread_)
        progress_.note(label_ + ": no one-thread ceilings cached" + (why.empty() ? "" : " (" + why + ")") +
                       "; rows are bound by this worker's threads alone");
    }
    return one_thread_ ? &*one_thread_ : nullptr;
  }

  const RunOptions& options_;
  const WorkerPlan& w_;
  std::uint64_t seed_;
  ResultsWriter& writer_;
  Progress& progress_;
  const SignalWatch& signals_;
  Tally& tally_;
  const std::string label_;
  std::vector<std::string> environment_;
  std::vector<PendingCase> pending_;
  Json ceilings_key_;  // this machine's and build's cache key and file, with ceilings on
  std::string ceilings_path_;
  std::optional<workloads::Ceilings> ceilings_;    // this configuration's: cached or its first worker's
  std::optional<workloads::Ceilings> one_thread_;  // one_thread_ceilings()
  bool one_thread_looked_up_ = false;
  std::string
      ceilings_source_;  // "cached <path> (<when>)", "measured[, with the best of <path> (<when>)]", "off"
  Attempt a_;            // the worker process being supervised
};

}  // namespace

void run_plan(const RunOptions& options, const RunPlan& plan, std::uint64_t seed, ResultsWriter& writer,
              Progress& progress, const SignalWatch& signals, Tally& tally) {
  for (const WorkerPlan& w : plan.workers) {
    if (signals.received() != 0) break;
    WorkerPlanRun(options, w, seed, writer, progress, signals, tally).run();
  }
}

}  // namespace tfbench::harness::impl
