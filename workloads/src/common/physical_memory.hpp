#pragma once
// The machine's physical memory: working sets are capped at a fraction of it.

#include <unistd.h>

namespace tfbench::workloads {

/// Bytes of physical memory (sysconf), 0 when unknown.
inline double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

}  // namespace tfbench::workloads
