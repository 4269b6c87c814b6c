#pragma once
// Starting a worker: tfbench re-executes itself (/proc/self/exe) with the hidden `worker`
// subcommand, its job on stdin, its messages on fd 3, stdout folded into stderr, and a death
// signal tied to the parent so that no worker outlives an interrupted run.

#include <sys/types.h>

#include <string>
#include <vector>

namespace tfbench::harness::impl {

struct WorkerProcess {
  pid_t pid = -1;
  int message_fd = -1;  // read end of the worker's message pipe (non-blocking)
};

/// The path of the running executable.
std::string self_executable();

/// Forks and execs `exe worker --message-fd 3 <extra_args>` with `environment`, writes `job` to its
/// stdin and closes it. Throws std::runtime_error when the process cannot be started.
WorkerProcess spawn_worker(const std::string& exe, const std::string& job,
                           const std::vector<std::string>& environment,
                           const std::vector<std::string>& extra_args = {});

/// "ok", "exit <code>" or "signal <n> (<NAME>)" for a waitpid status.
std::string describe_wait_status(int status);

/// "SIGSEGV" for 11, ...
std::string signal_name(int signal);

}  // namespace tfbench::harness::impl
