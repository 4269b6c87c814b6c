#pragma once
// The machine and provider facts a measurement depends on: CPU, host, BLAS library and its threads.

#include <string>

#include "tfbench/workloads/blas_threads.hpp"

namespace tfbench::harness {

struct BlasInfo {
  std::string vendor;     // "OpenBLAS"
  std::string config;     // the library's own configuration string (version, core, threading)
  std::string threading;  // "sequential", "pthreads" or "openmp", as the library reports it
  int threads = 0;        // the library's own current thread count
};

std::string cpu_model();
std::string host_name();
/// CPUs in the calling thread's affinity mask (what a pinned thread may use).
int affinity_cpu_count();
/// Hardware threads the OS reports online.
int online_cpu_count();
/// The kernel's transparent huge page mode ("always", "madvise" or "never": the bracketed word of
/// /sys/kernel/mm/transparent_hugepage/enabled); empty where unknown. It moves what the memory
/// ceilings measure: a one-thread DRAM triad on the Xeon VM read 17.5 GB/s on 4 KiB pages
/// ("madvise", buffers not advised) and 23.1 with huge pages.
std::string transparent_hugepage_mode();
/// The bracketed word of a sysfs choice list ("always [madvise] never" -> "madvise"); empty if none.
std::string bracketed_choice(const std::string& text);

BlasInfo blas_info();
/// The BLAS as the processes tfbench starts will load it: blas_info().config, plus the
/// OPENBLAS_CORETYPE they inherit (provenance/blas_core.hpp); a key of tuning and ceilings files.
std::string blas_config_of_workers();
/// The core whose kernels this process's OpenBLAS loaded ("SkylakeX", "Prescott", ...).
std::string blas_core_name();

/// This user's tfbench cache directory for `leaf` ("tuning", "ceilings"): $<override_variable>
/// when set, else $XDG_CACHE_HOME/tfbench/<leaf>, else ~/.cache/tfbench/<leaf>.
std::string tfbench_cache_dir(const char* override_variable, const std::string& leaf);
/// BLAS threads are set in one place, the workloads' (where the per-item peers scope them too).
using workloads::set_blas_threads;

}  // namespace tfbench::harness
