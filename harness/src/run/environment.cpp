#include "run/environment.hpp"

#include <omp.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <vector>

extern char** environ;

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
  static const char* const removed[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                        "OMP_PROC_BIND",   "OMP_PLACES",           "GOMP_CPU_AFFINITY",
                                        "KMP_AFFINITY",    "KOKKOS_NUM_THREADS"};
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
  return env;
}

std::string environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace tfbench::harness::impl
