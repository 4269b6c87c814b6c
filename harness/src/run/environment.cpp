#include "run/environment.hpp"
#include "tune/tune_run.hpp"

#include "tfbench/engine/exec/cpu_set.hpp"

#include <dirent.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <utility>
#include <vector>

extern char** environ;
extern "C" {  // OpenBLAS (its cblas.h is not on the harness's include path in every build)
int openblas_get_num_threads(void);
void openblas_set_num_threads(int threads);
}

namespace tfbench::harness::impl {

AffinityRestore undo_startup_pinning() {
  AffinityRestore r;
  cpu_set_t current;
  CPU_ZERO(&current);
  sched_getaffinity(0, sizeof(current), &current);
  r.before = r.after = CPU_COUNT(&current);
  const int places = omp_get_num_places();
  if (places <= 0) return r;  // no places: libgomp did not bind anything
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int p = 0; p < places; ++p) {
    const int n = omp_get_place_num_procs(p);
    if (n <= 0) continue;
    std::vector<int> ids(static_cast<std::size_t>(n));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids) {
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &all);
    }
  }
  if (CPU_COUNT(&all) > CPU_COUNT(&current) && sched_setaffinity(0, sizeof(all), &all) == 0) {
    r.after = CPU_COUNT(&all);
  }
  return r;
}

std::vector<std::string> worker_environment(const WorkerEnvironmentOptions& options) {
  static const char* const removed[] = {"OMP_NUM_THREADS",        "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                        "OMP_PROC_BIND",          "OMP_PLACES",           "GOMP_CPU_AFFINITY",
                                        "KMP_AFFINITY",           "KOKKOS_NUM_THREADS",   "TFBENCH_PIN",
                                        tune::kTuningFileVariable};
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    bool drop = false;
    for (const char* r : removed) drop = drop || key == r;
    if (!drop) env.push_back(entry);
  }
  const std::string n = std::to_string(options.threads);
  env.push_back("OMP_NUM_THREADS=" + n);
  env.push_back("OPENBLAS_NUM_THREADS=" + n);
  if (options.omp_proc_bind) env.push_back("OMP_PROC_BIND=" + *options.omp_proc_bind);
  if (options.omp_places) env.push_back("OMP_PLACES=" + *options.omp_places);
  env.push_back(std::string("TFBENCH_PIN=") + (options.pin ? "1" : "0"));
  if (!options.tuning_file.empty())
    env.push_back(std::string(tune::kTuningFileVariable) + "=" + options.tuning_file);
  return env;
}

bool pinning_requested() {
  return environment_value("TFBENCH_PIN") != "0";
}

namespace {

using Place = std::vector<int>;  // CPUs, ascending

std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

cpu_set_t set_of(const Place& place) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : place) CPU_SET(c, &set);
  return set;
}

/// The mask of thread `tid` (0: the caller) as a place; empty when it cannot be read.
Place mask_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof(set), &set) != 0) return {};
  return cpus_of(set);
}

std::string text_of(const Place& place) {
  std::string out;
  for (int c : place) out += (out.empty() ? "" : "+") + std::to_string(c);
  return out.empty() ? "?" : out;
}

int read_int(const std::string& path) {
  std::ifstream in(path);
  int value = -1;
  return (in >> value) ? value : -1;
}

/// The physical cores of `cpus` (their CPUs in `cpus`), in order of their first CPU. Without
/// topology files every CPU counts as a core.
std::vector<Place> cores_of(const std::vector<int>& cpus) {
  std::map<std::pair<int, int>, Place> by_core;
  for (int c : cpus) {
    const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    const int package = read_int(topo + "physical_package_id"), core = read_int(topo + "core_id");
    by_core[core < 0 ? std::make_pair(-1, c) : std::make_pair(package, core)].push_back(c);
  }
  std::vector<Place> cores;
  for (auto& [key, place] : by_core) cores.push_back(std::move(place));
  std::sort(cores.begin(), cores.end());
  return cores;
}

std::vector<pid_t> process_threads() {
  std::vector<pid_t> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') tids.push_back(static_cast<pid_t>(std::atol(e->d_name)));
    }
    closedir(dir);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

/// What pin_worker_threads decided, for re-pinning after a fork.
struct Pinning {
  std::vector<Place> places;
  std::set<pid_t> team;  // the OpenMP threads
  cpu_set_t process_mask;
};
Pinning* pinning = nullptr;  // set once, by pin_worker_threads

/// Pins every thread outside the OpenMP team round-robin from place 1 (OpenBLAS runs its thread 0
/// on the caller, OpenMP thread 0) and reads each mask back into `text` and `problems`.
void pin_others(const Pinning& p, std::string& text, std::vector<std::string>& problems) {
  std::size_t k = 0;
  for (pid_t tid : process_threads()) {
    if (p.team.count(tid)) continue;
    const Place& want = p.places[(++k) % p.places.size()];
    const cpu_set_t set = set_of(want);
    const bool set_ok = sched_setaffinity(tid, sizeof(set), &set) == 0;
    const Place got = mask_of(tid);
    if (got.empty()) continue;  // the thread ended meanwhile
    text += (text.empty() ? "" : ",") + text_of(got);
    if (!set_ok || got != want) {
      problems.push_back("thread " + std::to_string(tid) + " runs on CPUs " + text_of(got) + ", pinned to " +
                         text_of(want));
    }
  }
}

/// OpenBLAS's pthread server ends its threads before every fork (a pthread_atfork handler) and
/// starts them again lazily from the next thread that calls it: a pinned one, whose one-core mask
/// they would all inherit. So after a fork (a Python peer starting) the parent restarts them at
/// once from a thread widened to the process's mask, and pins them again.
void restart_blas_threads_after_fork() {
  if (!pinning) return;
  cpu_set_t own;
  CPU_ZERO(&own);
  if (sched_getaffinity(0, sizeof(own), &own) != 0) return;
  sched_setaffinity(0, sizeof(pinning->process_mask), &pinning->process_mask);
  openblas_set_num_threads(openblas_get_num_threads());
  sched_setaffinity(0, sizeof(own), &own);
  std::string ignored_text;
  std::vector<std::string> ignored_problems;
  pin_others(*pinning, ignored_text, ignored_problems);
}

}  // namespace

ThreadBinding pin_worker_threads(int threads) {
  ThreadBinding b;
  (void)CpuSet::allowed();  // the engine latches the process's CPU set now, before this thread's narrows
  cpu_set_t process_mask;
  CPU_ZERO(&process_mask);
  sched_getaffinity(0, sizeof(process_mask), &process_mask);
  const std::vector<int> cpus = cpus_of(process_mask);
  std::vector<Place> places = cores_of(cpus);
  std::string kind = "cores";
  if (static_cast<int>(places.size()) < threads) {  // more threads than cores: one hardware thread each
    kind = "threads";
    places.clear();
    for (int c : cpus) places.push_back({c});
  }
  if (threads < 1 || static_cast<int>(places.size()) < threads) {
    b.problems.push_back("cannot pin " + std::to_string(threads) + " threads: the affinity mask holds " +
                         std::to_string(cpus.size()) + " CPU(s)");
    return b;
  }

  struct Seen {
    pid_t tid = 0;
    Place mask;
    int cpu = -1;
    bool set = false;
  };
  std::vector<Seen> seen(static_cast<std::size_t>(threads));
  int team = 0;
  // The same team size as Kokkos's pool: libgomp hands this region the threads Kokkos runs on.
#pragma omp parallel num_threads(threads)
  {
    const int i = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    Seen& s = seen[static_cast<std::size_t>(i)];
    const cpu_set_t set = set_of(places[static_cast<std::size_t>(i)]);
    s.set = sched_setaffinity(0, sizeof(set), &set) == 0;
    s.tid = static_cast<pid_t>(syscall(SYS_gettid));
    s.mask = mask_of(0);
    s.cpu = sched_getcpu();
  }
  if (team != threads) {
    b.problems.push_back("the OpenMP team has " + std::to_string(team) + " threads, " +
                         std::to_string(threads) + " requested");
  }

  static Pinning kept;
  kept.places.assign(places.begin(), places.begin() + threads);
  kept.process_mask = process_mask;
  std::string omp, others;
  for (int i = 0; i < team; ++i) {
    const Seen& s = seen[static_cast<std::size_t>(i)];
    const Place& want = places[static_cast<std::size_t>(i)];
    kept.team.insert(s.tid);
    omp += (i ? "," : "") + text_of(s.mask);
    const std::string who = "OpenMP thread " + std::to_string(i);
    if (!s.set || s.mask != want) {
      b.problems.push_back(who + " runs on CPUs " + text_of(s.mask) + ", pinned to " + text_of(want));
    } else if (std::find(want.begin(), want.end(), s.cpu) == want.end()) {
      b.problems.push_back(who + " is on CPU " + std::to_string(s.cpu) + ", outside its place " +
                           text_of(want));
    }
  }
  // The rest are OpenBLAS's server threads, created unpinned with the process's mask.
  pin_others(kept, others, b.problems);
  if (!pinning) pthread_atfork(nullptr, restart_blas_threads_after_fork, nullptr);
  pinning = &kept;
  b.text = kind + " omp:" + omp + (others.empty() ? "" : " others:" + others);
  return b;
}

std::string environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace tfbench::harness::impl
