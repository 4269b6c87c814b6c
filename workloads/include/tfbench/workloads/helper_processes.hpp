#pragma once
// Processes a workload starts to run part of its measurement (the Python peers' runners). When the
// harness measures what else ran on the worker's CPUs during a sample (host_load.hpp),
// their CPU time is the measurement's own, not interference.

#include <sys/types.h>

#include <vector>

namespace tfbench::workloads {

/// The live helper processes of this process, in the order they started.
std::vector<pid_t> helper_processes();
void add_helper_process(pid_t pid);
void remove_helper_process(pid_t pid);

}  // namespace tfbench::workloads
