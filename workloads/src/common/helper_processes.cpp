#include "tfbench/workloads/helper_processes.hpp"

#include <algorithm>
#include <mutex>

namespace tfbench::workloads {
namespace {
// Never destroyed: the peers' runners are function-local statics that stop their process, and so
// call remove_helper_process, from their destructors at exit. A registry built after a runner (on
// its first request) was destroyed before it, and the runner's destructor then read freed memory
// (AddressSanitizer, the workloads tests, 2026-12-07).
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<pid_t>& registry() {
  static auto* pids = new std::vector<pid_t>;
  return *pids;
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
