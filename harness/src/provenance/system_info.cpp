#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"

#include <cblas.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace tfbench::harness {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

int affinity_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
  return CPU_COUNT(&set);
}

std::string bracketed_choice(const std::string& text) {
  const auto open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close <= open + 1) return "";
  return text.substr(open + 1, close - open - 1);
}

std::string transparent_hugepage_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  return bracketed_choice(line);
}

int online_cpu_count() {
  return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

BlasInfo blas_info() {
  BlasInfo info;
  info.vendor = "OpenBLAS";
  info.config = openblas_get_config();
  switch (openblas_get_parallel()) {
    case 0:
      info.threading = "sequential";
      break;
    case 1:
      info.threading = "pthreads";
      break;
    case 2:
      info.threading = "openmp";
      break;
    default:
      info.threading = "unknown";
  }
  info.threads = workloads::blas_threads();
  return info;
}

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "";
}

std::string blas_config_of_workers() {
  // Parent and workers must agree: the parent's OpenBLAS loaded its own detection (say Prescott),
  // the workers' the OPENBLAS_CORETYPE they inherit, and the config string names the loaded core.
  std::string config = blas_info().config;
  const std::string loaded = blas_core_name();
  const char* chosen = std::getenv("OPENBLAS_CORETYPE");
  const std::string core = to_lower(chosen && *chosen ? chosen : loaded);
  const std::size_t at = loaded.empty() ? std::string::npos : config.find(loaded);
  if (at == std::string::npos) return config + " core=" + core;
  return config.replace(at, loaded.size(), "core=" + core);
}

std::string tfbench_cache_dir(const char* override_variable, const std::string& leaf) {
  if (const char* d = std::getenv(override_variable); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tfbench/" + leaf;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/tfbench/" + leaf;
}

}  // namespace tfbench::harness
