#include "tfbench/workloads/helper_processes.hpp"

#include <algorithm>
#include <mutex>

namespace tfbench::workloads {
namespace {
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::vector<pid_t>& registry() {
  static std::vector<pid_t> pids;
  return pids;
}
}  // namespace

std::vector<pid_t> helper_processes() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return registry();
}

void add_helper_process(pid_t pid) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& pids = registry();
  if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
}

void remove_helper_process(pid_t pid) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& pids = registry();
  pids.erase(std::remove(pids.begin(), pids.end(), pid), pids.end());
}

}  // namespace tfbench::workloads
