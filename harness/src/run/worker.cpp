#include "run/worker.hpp"

#include "run/ceilings_beside.hpp"
#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/timing.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/registry.hpp"
#include "tune/tune_run.hpp"

#include <sys/resource.h>
#include <unistd.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

namespace tfbench::harness::impl {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Line-oriented messages to the parent. A parent that went away ends the worker.
class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  void send(const Json& message) {
    const std::string line = dump_json(message) + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) std::_Exit(4);  // the parent is gone: nobody to report to
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t hash_text(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

/// Kills this worker the way a real fault would: no core file, default signal action.
[[noreturn]] void inject(FaultPlan::Kind kind) {
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  if (kind == FaultPlan::Kind::Abort) std::abort();
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  std::_Exit(139);
}

/// Kokkos's OpenMP back-end keeps a fixed table of thread data (OpenMPExec::MAX_THREAD_COUNT in 3.4,
/// OpenMPTraits::MAX_THREAD_COUNT in 4.x) and overruns it, dying with SIGSEGV or SIGABRT, when
/// initialized with more threads.
constexpr int kKokkosOpenMPMaxThreads = 512;

/// Why Kokkos must not be started with the job's thread count at all (nullopt: it may).
std::optional<std::string> unstartable(const WorkerJob& job) {
  if (!is_enabled(ExecSpaceKind::OpenMP) || job.threads <= kKokkosOpenMPMaxThreads) return std::nullopt;
  std::string why = "Kokkos's OpenMP back-end runs at most " + std::to_string(kKokkosOpenMPMaxThreads) +
                    " threads, " + std::to_string(job.threads) +
                    " requested (the worker did not start Kokkos)";
  const int cpus = affinity_cpu_count();
  if (cpus < job.threads) {
    why += "; the affinity mask holds " + std::to_string(cpus) + " CPU(s) for " +
           std::to_string(job.threads) + " threads";
  }
  return why;
}

/// What a worker that refused to start Kokkos reports: nothing verified, counts 0 (unknown).
Hello refused(const WorkerJob& job, const std::string& why) {
  Hello h;
  h.pid = getpid();
  h.exec_space = name(job.space);
  h.threads = job.threads;
  h.blas_threads_requested = job.threads;
  h.affinity_cpus = affinity_cpu_count();
  h.omp_proc_bind = environment_value("OMP_PROC_BIND");
  h.omp_places = environment_value("OMP_PLACES");
  h.verified = false;
  h.why = why;
  return h;
}

Hello verify(const WorkerJob& job) {
  Hello h;
  h.pid = getpid();
  h.exec_space = name(job.space);
  h.threads = job.threads;
  // The host thread pool Kokkos runs on (OpenMP); a Serial-only build has one thread.
  h.kokkos_threads = is_enabled(ExecSpaceKind::OpenMP) ? concurrency(ExecSpaceKind::OpenMP) : 1;
  h.blas_threads_requested = job.threads;
  h.blas_threads = set_blas_threads(job.threads);
  h.blas_core = blas_core_name();
  h.device = device_description(job.space);
  h.affinity_cpus = affinity_cpu_count();  // the mask the worker was given: pinning narrows this thread's
  h.omp_proc_bind = environment_value("OMP_PROC_BIND");
  h.omp_places = environment_value("OMP_PLACES");
  std::vector<std::string> problems;
  if (h.kokkos_threads != job.threads) {
    problems.push_back("Kokkos runs " + std::to_string(h.kokkos_threads) + " threads, " +
                       std::to_string(job.threads) + " requested");
  }
  if (h.blas_threads != job.threads) {
    problems.push_back("BLAS reports " + std::to_string(h.blas_threads) + " threads, " +
                       std::to_string(job.threads) + " requested");
  }
  if (h.affinity_cpus < job.threads) {
    problems.push_back(
        "the affinity mask holds " + std::to_string(h.affinity_cpus) + " CPU(s) for " +
        std::to_string(job.threads) + " threads" +
        (h.omp_proc_bind.empty() ? std::string() : " (OMP_PROC_BIND=" + h.omp_proc_bind + ")"));
  }
  // Pinned after the counts are set, so OpenBLAS's threads exist and were created unpinned.
  if (problems.empty() && pinning_requested()) {
    ThreadBinding binding = pin_worker_threads(job.threads);
    h.binding = binding.text;
    problems.insert(problems.end(), binding.problems.begin(), binding.problems.end());
  }
  h.verified = problems.empty();
  h.why = join(problems, "; ");
  return h;
}

/// Same inputs for every variant of the case, different per case, reproducible from the run seed.
workloads::RunContext case_context(const JobCase& job_case, const WorkerJob& job) {
  workloads::RunContext ctx;
  ctx.space = job.space;
  ctx.threads = job.threads;
  ctx.seed = mix(job.seed ^ hash_text(job_case.group_id));
  return ctx;
}

/// The row of one variant before it is checked: the parent adds the case, the variant's facts and
/// the worker.
ResultRow variant_row(const std::string& variant) {
  ResultRow row;
  row.variant = variant;
  row.overhead_s = 0.0;
  return row;
}

void fail(ResultRow& row, RowStatus status, std::string error) {
  row.status = status;
  row.error = std::move(error);
}

/// A row keeps only what its status vouches for: the measurements of an `ok` row, and the check's
/// error in an `ok` or `check_failed` one.
void drop_unvouched_measurements(ResultRow& row) {
  if (row.status == RowStatus::Ok) return;
  const ResultRow fresh;
  row.samples.clear();
  row.iterations = fresh.iterations;
  row.flops = row.bytes = row.write_allocate_bytes = kNaN;
  row.bandwidth_beside_gbs = row.peak_beside_gflops = row.handoff_beside_us = kNaN;
  row.bandwidth_beside_1t_gbs = row.peak_beside_1t_gflops = kNaN;
  row.beside_rounds = {};
  row.allocations = row.pool_hits = row.transfers = row.bytes_retained = kNaN;
  row.metrics = fresh.metrics;
  if (row.status != RowStatus::CheckFailed) row.max_rel_error = row.tolerance = kNaN;
}

/// The case's rows, in job order, and the instances that passed their check (to be timed).
struct CaseRows {
  std::vector<ResultRow> rows;
  std::vector<std::unique_ptr<workloads::Instance>> instances;
  std::vector<std::size_t> row_of_instance;
};

/// Builds and checks one variant; a passing one joins the variants to be timed.
void check_variant(const workloads::Family& family, const JobCase& job_case, const workloads::RunContext& ctx,
                   const FaultPlan& faults, Channel& channel, ResultRow row, CaseRows& out) {
  channel.send(message("begin", {{"case", job_case.index}, {"variant", row.variant}, {"phase", "check"}}));
  if (const auto fault = faults.fault_before(job_case.group_id + "/" + row.variant)) inject(*fault);
  const auto t0 = Clock::now();
  try {
    auto instance = family.instantiate(job_case.params, row.variant, ctx);
    const workloads::CheckResult check = instance->check();
    row.max_rel_error = check.max_rel_error;
    row.tolerance = check.tolerance;
    if (!check.passed) {
      fail(row, RowStatus::CheckFailed,
           check.message + " (max relative error " + format_number(check.max_rel_error, 3) + " > tolerance " +
               format_number(check.tolerance, 3) + ")");
    } else {
      row.status = RowStatus::Ok;
      out.instances.push_back(std::move(instance));
      out.row_of_instance.push_back(out.rows.size());
    }
  } catch (const std::exception& e) {
    fail(row, RowStatus::Error, e.what());
  }
  row.overhead_s = seconds_since(t0);
  out.rows.push_back(std::move(row));
}

/// The rows of every selected variant: skipped where the dry query found it unavailable, else checked.
CaseRows check_variants(const workloads::Family* family, const JobCase& job_case,
                        const workloads::RunContext& ctx, const FaultPlan& faults, Channel& channel) {
  CaseRows out;
  for (const auto& variant : job_case.variants) {
    ResultRow row = variant_row(variant.name);
    if (!family) {
      fail(row, RowStatus::Error, "family '" + job_case.family + "' is not compiled into this tfbench");
      out.rows.push_back(std::move(row));
    } else if (variant.unavailable) {
      fail(row, RowStatus::Skipped, *variant.unavailable);
      out.rows.push_back(std::move(row));
    } else {
      check_variant(*family, job_case, ctx, faults, channel, std::move(row), out);
    }
  }
  return out;
}

/// Times the checked variants together, interleaved round by round, and among them, in each round's
/// shuffled order, the ceilings' references of `beside` (plain loops over buffers of their own: no
/// "begin" message).
std::vector<TimedVariant> time_checked(CaseRows& c, const BesidePlan& beside, const JobCase& job_case,
                                       const WorkerJob& job, const workloads::RunContext& ctx,
                                       const FaultPlan& faults, Channel& channel) {
  std::vector<TimedVariant> timed(c.instances.size() + beside.references.size());
  for (std::size_t r = 0; r < beside.references.size(); ++r)
    timed[c.instances.size() + r].instance = beside.references[r].get();
  for (std::size_t i = 0; i < c.instances.size(); ++i) {
    const std::string& variant = c.rows[c.row_of_instance[i]].variant;
    timed[i].instance = c.instances[i].get();
    timed[i].delay_us = faults.delay_us(job_case.group_id + "/" + variant);
    timed[i].on_start = [&channel, index = job_case.index, variant] {
      channel.send(message("begin", {{"case", index}, {"variant", variant}, {"phase", "time"}}));
    };
  }
  TimingSettings settings;
  settings.repetitions = job_case.repetitions;
  settings.min_time = job_case.min_time;
  settings.shuffle_seed = mix(ctx.seed ^ static_cast<std::uint64_t>(job.threads));
  if (!timed.empty()) time_interleaved(timed, settings);
  return timed;
}

/// Records the samples of one timed variant, then its work, resource counts and metrics, which come
/// from extra runs after timing, never from timed ones.
void collect(ResultRow& row, const TimedVariant& timed, workloads::Instance& instance) {
  row.samples = timed.samples;
  row.iterations = timed.runs_per_sample;
  row.overhead_s += timed.calibration_s;
  if (!timed.error.empty()) fail(row, RowStatus::Error, "while timing: " + timed.error);
  try {
    const workloads::Work work = instance.work();
    // Zero work means "not meaningful" for the family: recorded as missing (NaN).
    row.flops = work.flops > 0 ? work.flops : kNaN;
    row.bytes = work.bytes > 0 ? work.bytes : kNaN;
    row.working_set_bytes = work.working_set_bytes > 0 ? work.working_set_bytes : row.bytes;
    row.write_allocate_bytes = work.bytes > 0 ? std::max(work.write_allocate_bytes, 0.0) : kNaN;
    if (work.flops > 0) row.precision = work.precision == workloads::FlopPrecision::F32 ? "f32" : "f64";
    const workloads::ResourceCounts counts = instance.resources();
    row.allocations = counts.allocations;
    row.pool_hits = counts.pool_hits;
    row.transfers = counts.transfers;
    row.bytes_retained = counts.bytes_retained;
    std::map<std::string, double> metrics = instance.metrics();
    if (timed.host_load.measured()) {  // the harness's own, beside the workload's (docs/results-format.md)
      metrics["host.other_cpu"] = timed.host_load.other();
      metrics["host.steal"] = timed.host_load.steal();
    }
    row.metrics = dump_json(Json(metrics));
  } catch (const std::exception& e) {
    fail(row, RowStatus::Error, std::string("after timing: ") + e.what());
  }
}

/// The ceilings that bound the rows, measured beside them (host spaces only: the ceilings are the
/// host's).
BesidePlan plan_beside(const CaseRows& c, const WorkerJob& job, const workloads::Ceilings& ceilings) {
  if (!is_host_space(job.space)) return {};
  try {
    return plan_ceilings_beside(c.instances, ceilings,
                                job.one_thread_ceilings ? &*job.one_thread_ceilings : nullptr);
  } catch (const std::exception& e) {  // e.g. no memory for the reference: the rows keep the ceiling
    std::cerr << "tfbench worker: no ceiling measured beside the case: " << e.what() << "\n";
    return {};
  }
}

/// Checks and times every selected variant of one case, then reports their rows together.
void run_case(const JobCase& job_case, const WorkerJob& job, const workloads::Ceilings& ceilings,
              const FaultPlan& faults, Channel& channel) {
  const workloads::Family* family = workloads::find_family(job_case.family);
  const workloads::RunContext ctx = case_context(job_case, job);
  CaseRows c = check_variants(family, job_case, ctx, faults, channel);
  const BesidePlan beside = plan_beside(c, job, ceilings);
  const std::vector<TimedVariant> timed = time_checked(c, beside, job_case, job, ctx, faults, channel);
  for (std::size_t i = 0; i < c.instances.size(); ++i) {
    ResultRow& row = c.rows[c.row_of_instance[i]];
    channel.send(
        message("begin", {{"case", job_case.index}, {"variant", row.variant}, {"phase", "collect"}}));
    collect(row, timed[i], *c.instances[i]);
    record_beside(row, beside, i, [&](std::size_t r) -> const std::vector<double>& {
      return timed[c.instances.size() + r].samples;
    });
  }
  c.instances.clear();  // free the case's memory before the next one
  for (auto& row : c.rows) drop_unvouched_measurements(row);
  channel.send(message("rows", {{"case", job_case.index}, {"rows", c.rows}}));
}

}  // namespace

std::optional<std::string> kokkos_unstartable(int threads) {
  WorkerJob job;
  job.threads = threads;
  return unstartable(job);
}

int worker_main(int message_fd) {
  Channel channel(message_fd);
  WorkerJob job;
  try {
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    job = parse_message(text).get<WorkerJob>();
  } catch (const std::exception& e) {
    std::cerr << "tfbench worker: unusable job: " << e.what() << "\n";
    return 2;
  }
  FaultPlan faults;
  try {
    faults = FaultPlan::from_environment();
  } catch (const std::exception& e) {
    std::cerr << "tfbench worker: " << e.what() << "\n";
    return 2;
  }

  if (const auto why = unstartable(job)) {
    channel.send(message("hello", refused(job, *why)));
    return 3;
  }
  int rc = 0;
  {
    KokkosStartOptions options;  // warnings off: OMP_PROC_BIND is unset on purpose (environment.hpp)
    options.num_threads = job.threads;
    const KokkosRuntime kokkos(options);
    tune::install_tuning_from_environment(std::cerr);  // the run's checked tuning file, if any
    const Hello hello = verify(job);
    channel.send(message("hello", hello));
    if (!hello.verified) {
      rc = 3;
    } else if (!job.verify_only) {
      workloads::Ceilings ceilings;
      double seconds = 0.0;
      workloads::RunContext ctx;
      ctx.space = job.space;
      ctx.threads = job.threads;
      ctx.seed = job.seed;
      if (job.ceilings) {
        ceilings = *job.ceilings;
      } else if (job.measure_ceilings) {
        const auto t0 = Clock::now();
        ceilings = workloads::measure_ceilings(ctx);
        seconds = seconds_since(t0);
      }  // else none: every ceiling stays NaN
      channel.send(message("ceilings", {{"ceilings", ceilings}, {"seconds", seconds}}));
      for (const auto& c : job.cases) run_case(c, job, ceilings, faults, channel);
      channel.send(message("done"));
    }
  }
  return rc;
}

}  // namespace tfbench::harness::impl
