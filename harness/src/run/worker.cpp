#include "run/worker.hpp"

#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/timing.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/registry.hpp"

#include <sys/resource.h>
#include <unistd.h>
#include <Kokkos_Core.hpp>

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

/// Checks and times every selected variant of one case, then reports them together.
void run_case(const JobCase& job_case, const WorkerJob& job, const FaultPlan& faults, Channel& channel) {
  std::vector<VariantOutcome> outcomes;
  const workloads::Family* family = workloads::find_family(job_case.family);
  workloads::RunContext ctx;
  ctx.space = job.space;
  ctx.threads = job.threads;
  // Same inputs for every variant of the case, different per case, reproducible from the run seed.
  ctx.seed = mix(job.seed ^ hash_text(job_case.group_id));

  std::vector<workloads::VariantInfo> offered;
  std::string family_error;
  if (!family) {
    family_error = "family '" + job_case.family + "' is not compiled into this tfbench";
  } else {
    try {
      offered = family->variants(job_case.params, ctx);
    } catch (const std::exception& e) {
      family_error = std::string("variants(): ") + e.what();
    }
  }

  std::vector<std::unique_ptr<workloads::Instance>> instances;
  std::vector<std::size_t> timed_outcome;  // outcome index of each instance
  for (const auto& variant : job_case.variants) {
    VariantOutcome o;
    o.variant = variant;
    const auto info = std::find_if(offered.begin(), offered.end(),
                                   [&](const workloads::VariantInfo& v) { return v.name == variant; });
    if (!family_error.empty() || info == offered.end()) {
      o.status = "error";
      o.error =
          !family_error.empty() ? family_error : "the family does not offer this variant in this worker";
      outcomes.push_back(std::move(o));
      continue;
    }
    o.variant_kind = workloads::name(info->kind);
    o.provider = info->provider;
    o.strategy = info->strategy;
    if (info->unavailable) {
      o.status = "skipped";
      o.error = *info->unavailable;
      outcomes.push_back(std::move(o));
      continue;
    }
    channel.send(message("begin", {{"case", job_case.index}, {"variant", variant}, {"phase", "check"}}));
    const std::string id = job_case.group_id + "/" + variant;
    if (const auto fault = faults.fault_before(id)) inject(*fault);
    const auto t0 = Clock::now();
    try {
      auto instance = family->instantiate(job_case.params, variant, ctx);
      const workloads::CheckResult check = instance->check();
      o.max_rel_error = check.max_rel_error;
      o.tolerance = check.tolerance;
      if (!check.passed) {
        o.status = "check_failed";
        o.error = check.message + " (max relative error " + format_number(check.max_rel_error, 3) +
                  " > tolerance " + format_number(check.tolerance, 3) + ")";
      } else {
        instances.push_back(std::move(instance));
        timed_outcome.push_back(outcomes.size());
      }
    } catch (const std::exception& e) {
      o.status = "error";
      o.error = e.what();
    }
    o.overhead_s = seconds_since(t0);
    outcomes.push_back(std::move(o));
  }

  std::vector<TimedVariant> timed(instances.size());
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const std::string& variant = outcomes[timed_outcome[i]].variant;
    timed[i].instance = instances[i].get();
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

  for (std::size_t i = 0; i < timed.size(); ++i) {
    VariantOutcome& o = outcomes[timed_outcome[i]];
    workloads::Instance& instance = *instances[i];
    channel.send(message("begin", {{"case", job_case.index}, {"variant", o.variant}, {"phase", "collect"}}));
    o.samples = timed[i].samples;
    o.iterations = timed[i].runs_per_sample;
    o.overhead_s += timed[i].calibration_s;
    if (!timed[i].error.empty()) {
      o.status = "error";
      o.error = "while timing: " + timed[i].error;
    }
    try {
      const workloads::Work work = instance.work();
      o.flops = work.flops;
      o.bytes = work.bytes;
      // Resource counts and metrics come from extra runs after timing, never from timed ones.
      const workloads::ResourceCounts counts = instance.resources();
      o.allocations = counts.allocations;
      o.pool_hits = counts.pool_hits;
      o.transfers = counts.transfers;
      o.bytes_retained = counts.bytes_retained;
      o.metrics = instance.metrics();
    } catch (const std::exception& e) {
      o.status = "error";
      o.error = std::string("after timing: ") + e.what();
    }
  }
  instances.clear();  // free the case's memory before the next one

  channel.send(message("rows", {{"case", job_case.index}, {"rows", outcomes}}));
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
      } else if (!job.measure_ceilings) {
        ceilings = workloads::Ceilings{std::nan(""), std::nan("")};
      } else {
        const auto t0 = Clock::now();
        ceilings = workloads::measure_ceilings(ctx);
        seconds = seconds_since(t0);
      }
      channel.send(
          message("ceilings", {{"gflops", ceilings.gflops}, {"gbs", ceilings.gbs}, {"seconds", seconds}}));
      for (const auto& c : job.cases) run_case(c, job, faults, channel);
      channel.send(message("done"));
    }
  }
  return rc;
}

}  // namespace tfbench::harness::impl
