#include "run/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tfbench::harness::impl {

std::string self_executable() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe to start a worker");
  path.resize(static_cast<std::size_t>(n));
  return path;
}

WorkerProcess spawn_worker(const std::string& exe, const std::string& job,
                           const std::vector<std::string>& environment,
                           const std::vector<std::string>& extra_args) {
  int job_pipe[2], message_pipe[2];
  if (pipe2(job_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(message_pipe, O_CLOEXEC) != 0) {
    close(job_pipe[0]);
    close(job_pipe[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: between fork and exec only
  // async-signal-safe calls are allowed (OpenBLAS and OpenMP threads exist in this process).
  std::vector<std::string> args = {exe, "worker", "--message-fd", "3"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = environment;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {job_pipe[0], job_pipe[1], message_pipe[0], message_pipe[1]}) close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    dup2(job_pipe[0], 0);
    dup2(message_pipe[1], 3);
    dup2(2, 1);  // worker chatter goes to stderr; stdout belongs to the parent's report
    // Nothing else of the parent's may leak into the worker: an inherited descriptor of the HDF5
    // file would keep its lock alive and the file open after the parent is gone.
    syscall(SYS_close_range, 4U, ~0U, 0U);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) sigaction(s, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(job_pipe[0]);
  close(message_pipe[1]);
  std::size_t done = 0;
  while (done < job.size()) {
    const ssize_t n = write(job_pipe[1], job.data() + done, job.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker died early; its exit status tells why
    done += static_cast<std::size_t>(n);
  }
  close(job_pipe[1]);
  fcntl(message_pipe[0], F_SETFL, fcntl(message_pipe[0], F_GETFL) | O_NONBLOCK);
  return {pid, message_pipe[0]};
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    default:
      break;
  }
  const char* text = sigabbrev_np(signal);
  return text ? std::string("SIG") + text : "signal " + std::to_string(signal);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "ok" : "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + signal_name(WTERMSIG(status)) + ")";
  return "unknown status " + std::to_string(status);
}

}  // namespace tfbench::harness::impl
