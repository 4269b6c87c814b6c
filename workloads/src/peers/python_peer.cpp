#include "peers/python_peer.hpp"

#include "tfbench/engine/exec/cpu_set.hpp"
#include "tfbench/workloads/family.hpp"
#include "tfbench/workloads/helper_processes.hpp"

#include <fcntl.h>
#include <omp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

extern char** environ;

namespace tfbench::workloads {
namespace {

constexpr int kReplyTimeoutMs = 600 * 1000;  // one peer call of a published sweep stays far below

std::map<std::string, std::string> parse_fields(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  std::string token;
  while (in >> token) {
    const auto eq = token.find('=');
    if (eq != std::string::npos) fields[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return fields;
}

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

/// The CPUs the peer may use: the worker process's own set (latched by the engine before the worker
/// pins its threads) joined with OpenMP's places (libgomp pins the main thread at start-up under
/// OMP_PROC_BIND; its places come from the set the process started with). Never wider than what
/// the process was given: under Slurm's binding or taskset the peer stays inside it.
cpu_set_t peer_cpus() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  const CpuSet allowed = CpuSet::allowed();
  for (int c = 0; c < CpuSet::kMaxCpus && c < CPU_SETSIZE; ++c) {
    if (allowed.contains(c)) CPU_SET(c, &cpus);
  }
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(static_cast<std::size_t>(std::max(0, omp_get_place_num_procs(p))));
    if (!ids.empty()) omp_get_place_proc_ids(p, ids.data());
    for (int id : ids) {
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &cpus);
    }
  }
  return cpus;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string env_or(const char* variable, const char* fallback) {
  const char* v = std::getenv(variable);
  return v && *v ? v : fallback;
}

PythonPeerRunner::PythonPeerRunner(PythonPeerConfig config) : config_(std::move(config)) {}

PythonPeerRunner::~PythonPeerRunner() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_locked();
}

void PythonPeerRunner::stop_locked() {
  if (child_ > 0 && owner_ == getpid()) {
    const char quit[] = "quit\n";
    (void)!send(fd_, quit, sizeof(quit) - 1, MSG_NOSIGNAL);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(child_, &status, WNOHANG) == 0; ++i) usleep(5000);
    if (waitpid(child_, &status, WNOHANG) == 0) {
      kill(child_, SIGKILL);
      waitpid(child_, &status, 0);
    }
  }
  if (child_ > 0) remove_helper_process(child_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  child_ = 0;
  pending_.clear();
}

void PythonPeerRunner::ensure_started_locked() {
  if (owner_ != getpid()) {
    // A forked child inherited the parent's runner: that process is not ours to talk to.
    if (child_ > 0) remove_helper_process(child_);  // the parent's runner, not this process's
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    child_ = 0;
    pending_.clear();
    probed_ = false;
    unavailable_.reset();
    owner_ = getpid();
  }
  if (child_ > 0) return;

  const std::string& python = config_.python;
  const std::string& script = config_.script;
  if (access(python.c_str(), X_OK) != 0)
    throw WorkloadError("no Python interpreter at " + python + config_.interpreter_hint);
  if (access(script.c_str(), R_OK) != 0)
    throw WorkloadError(config_.name + " runner script not found: " + script);

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw WorkloadError(errno_text("socketpair"));
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const bool python_setting =
        std::strncmp(*e, "PYTHONPATH=", 11) == 0 || std::strncmp(*e, "PYTHONHOME=", 11) == 0;
    if (python_setting && config_.clean_python_env) continue;
    env_strings.emplace_back(*e);
  }
  env_strings.emplace_back("PYTHONUNBUFFERED=1");
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string arg0 = python, arg1 = "-u", arg2 = script;
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  // The calling thread may be pinned to one core (the worker's pinning, OMP_PROC_BIND): the peer
  // gets the process's set instead, not every CPU of the machine (which would escape a binding).
  const cpu_set_t cpus = peer_cpus();

  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw WorkloadError(errno_text(("fork of the " + config_.name + " runner").c_str()));
  }
  if (pid == 0) {
    dup2(fds[1], 0);
    dup2(fds[1], 1);
    // Nothing else of the worker's may leak into Python: an inherited message pipe would hold the
    // parent's read end open past the worker's death, an inherited HDF5 descriptor its lock.
    syscall(SYS_close_range, 3U, ~0U, 0U);
    sched_setaffinity(0, sizeof(cpus), &cpus);
    execve(argv[0], argv, envp.data());
    _exit(127);
  }
  close(fds[1]);
  fd_ = fds[0];
  child_ = pid;
  add_helper_process(pid);  // its CPU time is the peer's measurement, not interference
}

std::string PythonPeerRunner::exchange_locked(const std::string& line) {
  const std::string out = line + "\n";
  std::size_t sent = 0;
  while (sent < out.size()) {
    const ssize_t n = send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stop_locked();
      throw WorkloadError("the " + config_.name + " runner is gone (" + errno_text("send") + ")");
    }
    sent += static_cast<std::size_t>(n);
  }
  for (;;) {
    const auto eol = pending_.find('\n');
    if (eol != std::string::npos) {
      std::string reply = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      return reply;
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, kReplyTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      stop_locked();
      throw WorkloadError("the " + config_.name + " runner did not answer '" + line + "' within " +
                          std::to_string(kReplyTimeoutMs / 1000) + " s");
    }
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // End of stream: the child exited (or closed its stdout); reap it and say how it ended.
      int status = 0;
      std::string why = "closed its output";
      if (waitpid(child_, &status, 0) == child_) {
        if (WIFEXITED(status)) why = "exited with status " + std::to_string(WEXITSTATUS(status));
        if (WIFSIGNALED(status)) why = "was killed by signal " + std::to_string(WTERMSIG(status));
      }
      remove_helper_process(child_);
      close(fd_);
      fd_ = -1;
      child_ = 0;
      pending_.clear();
      throw WorkloadError("the " + config_.name + " runner (" + config_.python + " " + config_.script + ") " +
                          why + " while answering '" + line + "'");
    }
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

std::map<std::string, std::string> PythonPeerRunner::request(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_started_locked();
  const std::string reply = exchange_locked(line);
  if (reply.rfind("ok", 0) == 0) return parse_fields(reply.substr(2));
  if (reply.rfind("error ", 0) == 0) throw WorkloadError(config_.name + " peer: " + reply.substr(6));
  throw WorkloadError(config_.name + " peer: unexpected reply '" + reply + "' to '" + line + "'");
}

std::optional<std::string> PythonPeerRunner::unavailable() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (probed_ && owner_ == getpid()) return unavailable_;
  }
  std::optional<std::string> reason;
  std::map<std::string, std::string> fields;
  try {
    fields = request("hello");
  } catch (const std::exception& e) {
    reason = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  probed_ = true;
  unavailable_ = reason;
  hello_ = fields;
  return unavailable_;
}

std::map<std::string, std::string> PythonPeerRunner::hello() {
  (void)unavailable();
  std::lock_guard<std::mutex> lock(mutex_);
  return hello_;
}

int PythonPeerRunner::set_threads(int threads) {
  auto f = request("threads n=" + std::to_string(threads));
  return std::atoi(f["verified"].c_str());
}

// ---------------------------------------------------------------- shared file

std::vector<std::string> SharedFile::default_directories() {
  if (const char* chosen = std::getenv("TFBENCH_SHM_DIR"); chosen && *chosen) return {chosen};
  return {"/dev/shm", env_or("TMPDIR", "/tmp")};
}

SharedFile::SharedFile(std::size_t bytes, const std::string& tag)
    : SharedFile(bytes, tag, default_directories()) {}

SharedFile::SharedFile(std::size_t bytes, const std::string& tag, const std::vector<std::string>& directories)
    : bytes_(std::max<std::size_t>(bytes, 1)) {
  // The pages are reserved before the file is mapped: a file only truncated to its size maps fine in
  // a /dev/shm too small for it (a container's default 64 MiB) and the first write past the room
  // kills the process with SIGBUS. Reserved, the shortage is an error here, and the next directory
  // (disk-backed, through the page cache) takes the file.
  std::string failures;
  for (const std::string& dir : directories) {
    std::string templ = dir + "/tfbench-" + tag + "-XXXXXX";
    const int fd = mkstemp(templ.data());
    if (fd < 0) {
      failures += "; " + errno_text(("creating a file in " + dir).c_str());
      continue;
    }
    const int reserved = posix_fallocate(fd, 0, static_cast<off_t>(bytes_));
    if (reserved != 0) {
      close(fd);
      unlink(templ.c_str());
      failures += "; " + dir + ": reserving " + std::to_string(bytes_) + " bytes: " + std::strerror(reserved);
      continue;
    }
    data_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (data_ == MAP_FAILED) {
      data_ = nullptr;
      failures += "; " + errno_text(("mapping the file in " + dir).c_str());
      unlink(templ.c_str());
      continue;
    }
    path_ = templ;
    return;
  }
  throw WorkloadError("no room for the " + tag + " operand file (" + std::to_string(bytes_) +
                      " bytes; TFBENCH_SHM_DIR chooses its directory)" + failures);
}

SharedFile::~SharedFile() {
  if (data_) munmap(data_, bytes_);
  unlink_path();
}

void SharedFile::unlink_path() {
  if (linked_) unlink(path_.c_str());
  linked_ = false;
}

// ---------------------------------------------------------------- operation

PeerOperation::PeerOperation(PythonPeerRunner& runner, std::string fields, std::size_t bytes)
    : runner_(runner), fields_(std::move(fields)), file_(bytes, lower(runner.config().name)) {
  static std::atomic<long> next{0};
  id_ = std::to_string(++next);
}

PeerOperation::~PeerOperation() {
  if (!live_) return;
  try {
    runner_.request("release id=" + id_);
  } catch (...) {
    // The runner is gone: nothing left to release.
  }
}

int PeerOperation::setup(int threads) {
  const int verified = runner_.set_threads(threads);
  runner_.request("setup id=" + id_ + " " + fields_ + " file=" + file_.path());
  live_ = true;
  file_.unlink_path();  // Python has mapped it
  return verified;
}

double PeerOperation::timed(const char* command) {
  auto f = runner_.request(std::string(command) + " id=" + id_);
  return std::strtod(f["ns"].c_str(), nullptr) * 1e-9;
}

double PeerOperation::run() {
  return timed("run");
}
double PeerOperation::check() {
  return timed("check");
}

}  // namespace tfbench::workloads
