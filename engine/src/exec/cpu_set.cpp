#include "tfbench/engine/exec/cpu_set.hpp"

#include <sched.h>
#include <unistd.h>

#include <stdexcept>

namespace tfbench {

CpuSet CpuSet::allowed() {
  static const CpuSet set = [] {
    CpuSet s;
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE && cpu < kMaxCpus; ++cpu) {
        if (CPU_ISSET(cpu, &mask)) s.add(cpu);
      }
    }
    if (s.empty()) {
      const long online = sysconf(_SC_NPROCESSORS_ONLN);
      for (long cpu = 0; cpu < online && cpu < kMaxCpus; ++cpu) s.add(static_cast<int>(cpu));
    }
    if (s.empty()) s.add(0);
    return s;
  }();
  return set;
}

CpuSet CpuSet::of(std::initializer_list<int> cpus) {
  CpuSet s;
  for (int cpu : cpus) s.add(cpu);
  return s;
}

void CpuSet::add(int cpu) {
  if (cpu < 0 || cpu >= kMaxCpus) {
    throw std::out_of_range("CpuSet: cpu " + std::to_string(cpu) + " outside [0, " +
                            std::to_string(kMaxCpus) + ")");
  }
  bits_.set(static_cast<std::size_t>(cpu));
}

bool CpuSet::contains(int cpu) const {
  return cpu >= 0 && cpu < kMaxCpus && bits_.test(static_cast<std::size_t>(cpu));
}

std::string CpuSet::to_string() const {
  std::string out;
  for (int cpu = 0; cpu < kMaxCpus;) {
    if (!bits_.test(cpu)) {
      ++cpu;
      continue;
    }
    int last = cpu;
    while (last + 1 < kMaxCpus && bits_.test(last + 1)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(cpu);
    if (last > cpu) out += '-' + std::to_string(last);
    cpu = last + 1;
  }
  return "{" + out + "}";
}

}  // namespace tfbench
