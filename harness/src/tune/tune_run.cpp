// Calibration runs and putting a tuning into effect (tune/tune_run.hpp).

#include "tune/tune_run.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "run/spawn.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace tfbench::harness::tune {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool parse_positive(const std::string& text, int& value) {
  try {
    std::size_t used = 0;
    value = std::stoi(text, &used);
    return used == text.size() && value >= 1;
  } catch (const std::exception&) {
    return false;
  }
}

std::string join_ints(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

std::string join_dtypes(const std::vector<DType>& v) {
  std::string out;
  for (DType d : v) out += (out.empty() ? "" : ",") + std::string(name(d));
  return out;
}

std::string join_levels(const std::vector<ops::MemoryLevel>& v) {
  std::string out;
  for (ops::MemoryLevel l : v) out += (out.empty() ? "" : ",") + std::string(ops::name(l));
  return out;
}

std::string join_families(const TuneRequest& r) {
  std::string out;
  for (const auto& [on, name] :
       {std::pair<bool, const char*>{r.gemm, "gemm"}, {r.solve, "solve"}, {r.contraction, "contraction"}}) {
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}

/// Runs `exe args...` and waits; its stderr and stdout are ours. Returns its wait status text.
std::string run_child(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("tune: cannot fork a calibration process");
  if (pid == 0) {
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("tune: cannot wait for the calibration process");
  }
  return impl::describe_wait_status(status);
}

workloads::TuneOptions options_for(const TuneRequest& r, int threads, const ops::CacheSizes& caches) {
  workloads::TuneOptions o;
  // As a worker's: OpenMP where built (a one-thread backend runs on Serial), else Serial.
  o.space = is_enabled(ExecSpaceKind::OpenMP) ? ExecSpaceKind::OpenMP : ExecSpaceKind::Serial;
  o.threads = threads;
  o.item_dims = r.item_dims;
  o.levels = r.levels;
  o.dtypes = r.dtypes;
  o.caches = caches;
  o.dram_bytes = r.dram_bytes;
  o.gemm = r.gemm;
  o.solve = r.solve;
  o.rounds = r.rounds;
  o.max_sizes_per_level = r.sizes_per_level;
  o.llc_top_octave = r.llc_top_octave;
  o.min_time_s = r.min_time_s;
  return o;
}

}  // namespace

bool parse_request(const std::string& threads, const std::string& sizes, const std::string& families,
                   const std::string& levels, const std::string& dtypes, TuneRequest& request,
                   std::ostream& err) {
  request.threads.clear();
  const int max_threads = affinity_cpu_count();
  for (const std::string& t : split_list(threads)) {
    int v = 0;
    if (t == "max") {
      v = max_threads;
    } else if (!parse_positive(t, v)) {
      err << "tfbench tune: --threads: '" << t << "' is not a positive integer or max\n";
      return false;
    }
    if (v > max_threads) {
      err << "tfbench tune: --threads: " << v << " exceeds the " << max_threads << " CPUs tfbench may use\n";
      return false;
    }
    if (std::find(request.threads.begin(), request.threads.end(), v) == request.threads.end())
      request.threads.push_back(v);
  }
  request.item_dims.clear();
  for (const std::string& s : split_list(sizes)) {
    int v = 0;
    if (!parse_positive(s, v) || v > 256) {
      err << "tfbench tune: --sizes: '" << s << "' is not an item size in 1..256\n";
      return false;
    }
    request.item_dims.push_back(v);
  }
  request.gemm = request.solve = request.contraction = false;
  for (const std::string& f : split_list(families)) {
    if (f == "gemm") {
      request.gemm = true;
    } else if (f == "solve") {
      request.solve = true;
    } else if (f == "contraction") {
      request.contraction = true;
    } else {
      err << "tfbench tune: --families: '" << f << "' (expected gemm, solve or contraction)\n";
      return false;
    }
  }
  request.levels.clear();
  for (const std::string& l : split_list(levels)) {
    const auto level = ops::parse_memory_level(l);
    if (!level) {
      err << "tfbench tune: --levels: '" << l << "' (expected l1, l2, llc or dram)\n";
      return false;
    }
    request.levels.push_back(*level);
  }
  request.dtypes.clear();
  for (const std::string& d : split_list(dtypes)) {
    const auto dtype = parse_tuned_dtype(d);
    if (!dtype) {
      err << "tfbench tune: --dtypes: '" << d << "' (expected f64 or f32)\n";
      return false;
    }
    if (std::find(request.dtypes.begin(), request.dtypes.end(), *dtype) == request.dtypes.end())
      request.dtypes.push_back(*dtype);
  }
  if (request.threads.empty() || request.item_dims.empty() || request.levels.empty() ||
      request.dtypes.empty() || !(request.gemm || request.solve || request.contraction)) {
    err << "tfbench tune: --threads, --sizes, --levels, --dtypes and --families must each name at least one "
           "value\n";
    return false;
  }
  return true;
}

int run_tuning_child(const TuneRequest& request, int threads, const std::string& path, std::ostream& log) {
  KokkosStartOptions start;
  start.num_threads = threads;
  const KokkosRuntime kokkos(start);
  TuningFile file;
  file.key = current_key();
  file.created_utc = utc_now_iso();
  file.command_line = request.command_line;
  const auto progress = [&](const std::string& line) { log << "tune: " << line << std::endl; };
  workloads::TuneOptions options = options_for(request, threads, file.key.caches);
  if (request.gemm || request.solve) file.classes = workloads::tune_batched(options, progress);
  if (request.contraction) file.contraction.push_back(workloads::tune_direct_contraction(options, progress));
  write_tuning_file(path, file);
  return 0;
}

int run_tuning(const TuneRequest& request, const std::string& path, std::ostream& log) {
  const auto start = std::chrono::steady_clock::now();
  const std::string exe = impl::self_executable();
  TuningFile merged;
  merged.key = current_key();
  merged.created_utc = utc_now_iso();
  merged.command_line = request.command_line;
  for (int threads : request.threads) {
    log << "tune: " << threads << " thread" << (threads == 1 ? "" : "s") << " ..." << std::endl;
    const std::string part = path + ".part" + std::to_string(getpid()) + "-" + std::to_string(threads);
    std::vector<std::string> args = {"tune",
                                     "--single-threads",
                                     std::to_string(threads),
                                     "-o",
                                     part,
                                     "--sizes",
                                     join_ints(request.item_dims),
                                     "--levels",
                                     join_levels(request.levels),
                                     "--dtypes",
                                     join_dtypes(request.dtypes),
                                     "--families",
                                     join_families(request),
                                     "--rounds",
                                     std::to_string(request.rounds),
                                     "--sizes-per-level",
                                     std::to_string(request.sizes_per_level),
                                     "--min-time",
                                     std::to_string(request.min_time_s),
                                     "--dram-mib",
                                     std::to_string(request.dram_bytes / (1024.0 * 1024))};
    if (!request.llc_top_octave) args.push_back("--no-llc-top-octave");
    const std::string status = run_child(exe, args);
    if (status != "ok") {
      log << "tfbench tune: the " << threads << "-thread calibration ended with " << status << "\n";
      std::remove(part.c_str());
      continue;
    }
    TuningFile one = read_tuning_file(part);
    std::remove(part.c_str());
    for (auto& c : one.classes) merged.classes.push_back(std::move(c));
    for (auto& c : one.contraction) merged.contraction.push_back(std::move(c));
  }
  const bool any = !merged.contraction.empty() ||
                   std::any_of(merged.classes.begin(), merged.classes.end(),
                               [](const workloads::TuneClassResult& c) { return c.choice.has_value(); });
  if (!any) {
    log << "tfbench tune: no class could be measured; nothing written\n";
    return 1;
  }
  write_tuning_file(path, merged);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log << "tune: wrote " << path << " (" << merged.classes.size() << " classes, " << merged.contraction.size()
      << " contraction crossover(s), " << std::fixed << std::setprecision(1) << seconds << " s)" << std::endl;
  const auto again = std::count_if(merged.classes.begin(), merged.classes.end(),
                                   [](const workloads::TuneClassResult& c) { return c.attempts > 1; });
  const auto busy = std::count_if(merged.classes.begin(), merged.classes.end(),
                                  [](const workloads::TuneClassResult& c) { return c.busy_host; });
  const auto unjudged = std::count_if(
      merged.classes.begin(), merged.classes.end(),
      [](const workloads::TuneClassResult& c) { return c.choice && !std::isfinite(c.host_other_cpu); });
  if (unjudged > 0)
    log << "tune: " << unjudged << " class(es) too short (under 0.4 CPU-seconds) to judge the host's load"
        << std::endl;
  if (again > 0) {
    log << "tune: " << again << " class(es) measured again because other work or the hypervisor took over "
        << std::lround(100 * workloads::kBusyHostShare) << "% of the CPUs";
    if (busy > 0)
      log << "; " << busy << " still busy after their retries: kept in the file, not used by Auto (tune "
          << "again on a quiet machine)";
    log << std::endl;
  }
  return 0;
}

void make_quick(TuneRequest& request) {
  request.levels = {ops::MemoryLevel::L1, ops::MemoryLevel::L2, ops::MemoryLevel::LLC};
  request.llc_top_octave = false;
  request.rounds = 3;
  request.min_time_s = 0.002;
}

std::string decision_table(const TuningFile& file) {
  std::ostringstream out;
  for (const auto& c : file.classes) {
    out << (c.cls.family == ops::BatchedFamily::Gemm ? "gemm " : "solve") << " " << name(c.cls.dtype)
        << " n=" << std::setw(3) << c.cls.item_dim << " " << std::setw(4) << ops::name(c.cls.level) << " "
        << std::setw(7) << std::fixed << std::setprecision(2) << c.operand_bytes / (1024.0 * 1024) << " MiB "
        << std::setw(2) << c.cls.threads << "T  ";
    if (!c.choice) {
      out << "no choice\n";
      continue;
    }
    if (c.busy_host) out << "(busy host, not used) ";
    out << ops::describe(*c.choice);
    double best = 0;
    for (const auto& k : c.candidates)
      if (k.choice() == *c.choice) best = k.decisive_s();
    out << "  ";
    for (const auto& k : c.candidates) {
      if (!k.skipped.empty()) continue;
      out << " " << k.label() << " " << std::fixed << std::setprecision(2)
          << (best > 0 ? k.decisive_s() / best : 0.0) << "x";
    }
    out << "\n";
  }
  for (const auto& c : file.contraction) {
    out << "contraction f64 " << std::setw(2) << c.threads << "T  direct up to " << std::defaultfloat
        << std::setprecision(6) << c.direct_max_muladds << " multiply-adds per item"
        << (c.busy_host ? " (busy host, not used)" : "") << "  direct/gemm:";
    for (const auto& p : c.points)
      out << " n=" << p.n << " " << std::fixed << std::setprecision(2) << p.direct_s / p.gemm_s << "x";
    out << "\n";
  }
  return out.str();
}

RunTuning resolve_run_tuning(const std::string& mode, std::ostream& log) {
  if (mode == "off") return {};
  if (mode != "auto") {
    const LoadedTuning loaded = load_tuning(mode);
    if (!loaded.tuning) {
      log << "tfbench run: --tuning: " << loaded.refusal << "; Auto uses its built-in preference\n";
      return {};
    }
    return {mode, loaded.sha256};
  }
  const std::string path = default_tuning_path(current_key());
  LoadedTuning loaded = load_tuning(path);
  if (loaded.tuning) return {path, loaded.sha256};
  log << "tfbench run: no tuning for this machine and build yet (" << loaded.refusal
      << "); calibrating Auto first (bounded, `tfbench tune --quick`; `--tuning off` skips it)" << std::endl;
  TuneRequest request;
  std::ostringstream ignored;
  parse_request("1,max", "2,4,8,16,32", "gemm,solve,contraction", "l1,l2,llc", "f64,f32", request, ignored);
  make_quick(request);
  request.command_line = "tfbench run (calibration on first use)";
  if (run_tuning(request, path, log) != 0) return {};
  loaded = load_tuning(path);
  if (!loaded.tuning) {
    log << "tfbench run: the calibration's file was refused (" << loaded.refusal << ")\n";
    return {};
  }
  return {path, loaded.sha256};
}

void install_tuning_from_environment(std::ostream& log) {
  const char* path = std::getenv(kTuningFileVariable);
  if (path == nullptr || *path == '\0') return;
  const LoadedTuning loaded = load_tuning(path);
  if (!loaded.tuning) {
    log << "tfbench worker: " << loaded.refusal << "; Auto uses its built-in preference\n";
    return;
  }
  workloads::install_auto_tuning(loaded.tuning);
}

}  // namespace tfbench::harness::tune
