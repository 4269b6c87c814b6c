#include "tfbench/harness/runner.hpp"
#include "provenance/blas_core.hpp"

#include "run/ceilings_cache.hpp"
#include "run/environment.hpp"
#include "run/plan_runner.hpp"
#include "run/progress.hpp"
#include "run/protocol.hpp"
#include "run/spawn.hpp"
#include "run/supervisor.hpp"
#include "run/variant_query.hpp"
#include "tfbench/harness/build_info.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/isa.hpp"
#include "tfbench/harness/openmp_runtime.hpp"
#include "tfbench/harness/results.hpp"
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
  record_isa(info);
  info.tuning_file = options.tuning_file;
  info.tuning_sha256 = options.tuning_sha256;
  info.blas_coretype_forced = forced_openblas_core();
  info.transparent_hugepage = transparent_hugepage_mode();
  info.openmp_runtime = openmp_runtime_library();
  return info;
}

/// The run's expected time: workers that find their ceilings in the cache do not measure them.
RunEstimate run_estimate(const RunPlan& plan, const RunOptions& options) {
  return estimate_run(plan, impl::ceilings_measured_by(options.ceilings, options.pin),
                      options.measure_ceilings());
}

}  // namespace

std::optional<RunInput> load_run_input(const RunOptions& options, std::ostream& err) {
  LoadOptions load;
  load.max_threads = available_cpus();
  RunInput input;
  try {
    for (const auto& path : options.configs) input.configs.push_back(load_config(path, load));
    FaultPlan::from_environment();  // a malformed TFBENCH_FAULT_INJECT is an input error, caught here
  } catch (const ConfigError& e) {
    for (const auto& issue : e.issues()) err << issue.to_string() << '\n';
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    err << "tfbench run: " << e.what() << '\n';
    return std::nullopt;
  }
  try {
    input.plan = make_plan(input.configs, options.overrides);
  } catch (const std::invalid_argument& e) {
    err << "tfbench run: " << e.what() << '\n';
    return std::nullopt;
  }
  for (const auto& note : input.plan.notes) err << "note: " << note << '\n';
  if (input.plan.row_count() == 0) {
    err << "tfbench run: nothing to run" << (options.overrides.filter ? " (--filter matched no case)" : "")
        << '\n';
    return std::nullopt;
  }
  return input;
}

int run_benchmarks(const RunOptions& options, RunInput input, std::ostream& out, std::ostream& err) {
  const std::vector<Config>& configs = input.configs;
  RunPlan& plan = input.plan;  // the workers' answer on variants goes into it
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
  // Which variants run is decided by a worker of each thread configuration, once: the jobs carry
  // its answer, and the rows its facts.
  VariantQuery query;
  query.configs = options.configs;
  query.filter = options.overrides.filter;
  query.omp_proc_bind = options.omp_proc_bind;
  query.omp_places = options.omp_places;
  query.listing = options.dry_run;
  for (const auto& note : ask_workers_for_variants(plan, query)) err << "note: " << note << '\n';
  if (options.dry_run) {
    print_plan(plan, out, run_estimate(plan, options));
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
  const RunEstimate estimate = run_estimate(plan, options);
  if (!info.fault_inject.empty()) {
    err << "tfbench run: note: TFBENCH_FAULT_INJECT='" << info.fault_inject
        << "' injects faults into the workers; recorded in the run's fault_inject attribute\n";
  }
  impl::Progress progress(out, options.interactive ? &err : nullptr, plan.row_count(), estimate.total_s());
  out << "tfbench run: " << plan.row_count() << " case(s) in " << plan.workers.size()
      << " thread configuration(s); results go to " << path << '\n';
  out << "estimated time: " << describe(estimate) << '\n';

  impl::Tally tally;
  std::string status = "complete";
  int rc = kRunOk;
  bool write_failed = false;
  try {
    impl::run_plan(options, plan, seed, *writer, progress, signals, tally);
    if (signals.received() != 0) status = "interrupted";
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

  const impl::Tally& t = tally;
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
