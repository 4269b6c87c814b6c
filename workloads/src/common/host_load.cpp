#include "tfbench/workloads/host_load.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

namespace tfbench::workloads {
namespace {

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `after - before`, 0 when a counter went backwards (a CPU taken offline, say).
std::uint64_t rise(std::uint64_t before, std::uint64_t after) {
  return after > before ? after - before : 0;
}

}  // namespace

std::optional<CpuTicks> parse_proc_stat(const std::string& text, const CpuSet& cpus) {
  CpuTicks t;
  bool any = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // "cpuN user nice system idle iowait irq softirq steal guest guest_nice"; "cpu " is the sum.
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    std::uint64_t v[8] = {};
    fields >> cpu;
    int read = 0;
    while (read < 8 && fields >> v[read]) ++read;
    if (read < 4 || !cpus.contains(cpu)) continue;  // steal and later states came with later kernels
    any = true;
    t.busy += v[0] + v[1] + v[2] + v[5] + v[6];  // guest time is inside user already
    t.steal += v[7];
    t.total += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  }
  if (!any) return std::nullopt;
  return t;
}

std::optional<std::uint64_t> parse_process_ticks(const std::string& text) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the
  // last ')'. utime and stime are fields 14 and 15, the 12th and 13th after it.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  std::uint64_t utime = 0, stime = 0;
  for (int i = 1; i <= 13; ++i) {
    if (!(fields >> field)) return std::nullopt;
    if (i < 12) continue;
    std::uint64_t value = 0;
    std::istringstream number(field);
    if (!(number >> value)) return std::nullopt;
    (i == 12 ? utime : stime) = value;
  }
  return utime + stime;
}

std::optional<std::uint64_t> process_cpu_ticks(pid_t pid) {
  const auto text = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (!text) return std::nullopt;
  return parse_process_ticks(*text);
}

char parse_process_state(const std::string& text) {
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size() || text[close + 1] != ' ') return 0;
  return text[close + 2];
}

bool process_runnable(pid_t pid) {
  std::error_code error;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    if (const auto text = slurp(task.path().string() + "/stat"); text && parse_process_state(*text) == 'R')
      return true;
  }
  return false;
}

bool wait_until_idle(const std::vector<pid_t>& pids, double max_seconds) {
  const auto sum = [&] {
    std::uint64_t total = 0;
    for (pid_t pid : pids) total += process_cpu_ticks(pid).value_or(0);
    return total;
  };
  const auto runnable = [&] { return std::any_of(pids.begin(), pids.end(), process_runnable); };
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
  std::uint64_t last = sum();
  int quiet_polls = 0;
  while (quiet_polls < 2) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::uint64_t now = sum();
    quiet_polls = now == last && !runnable() ? quiet_polls + 1 : 0;
    last = now;
  }
  return true;
}

std::optional<CpuTicks> read_cpu_ticks(const CpuSet& cpus, const std::vector<pid_t>& helpers) {
  const auto stat = slurp("/proc/stat");
  if (!stat) return std::nullopt;
  auto t = parse_proc_stat(*stat, cpus);
  const auto self = process_cpu_ticks(getpid());
  if (!t || !self) return std::nullopt;
  t->self = *self;
  for (pid_t pid : helpers) {
    if (const auto ticks = process_cpu_ticks(pid)) t->helpers.emplace_back(pid, *ticks);
  }
  return t;
}

void HostLoad::add(const std::optional<CpuTicks>& before, const std::optional<CpuTicks>& after,
                   bool helpers_own) {
  if (!before || !after) return;
  std::uint64_t own = rise(before->self, after->self);
  if (helpers_own) {
    for (const auto& [pid, ticks] : after->helpers) {  // helpers alive at both ends
      const auto it = std::find_if(before->helpers.begin(), before->helpers.end(),
                                   [pid = pid](const auto& h) { return h.first == pid; });
      if (it != before->helpers.end()) own += rise(it->second, ticks);
    }
  }
  const std::uint64_t busy = rise(before->busy, after->busy);
  other_ += busy > own ? busy - own : 0;
  steal_ += rise(before->steal, after->steal);
  total_ += rise(before->total, after->total);
}

double HostLoad::other() const {
  if (!measured()) return std::numeric_limits<double>::quiet_NaN();
  return std::min(1.0, static_cast<double>(other_) / static_cast<double>(total_));
}

double HostLoad::steal() const {
  if (!measured()) return std::numeric_limits<double>::quiet_NaN();
  return std::min(1.0, static_cast<double>(steal_) / static_cast<double>(total_));
}

}  // namespace tfbench::workloads
