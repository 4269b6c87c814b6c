#include "peers/numpy_runner.hpp"

#include "tfbench/workloads/family.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

extern char** environ;

namespace tfbench::workloads {
namespace {

constexpr int kReplyTimeoutMs = 600 * 1000;  // one NumPy call of a published sweep stays far below

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string python_path() {
  return env_or("TFBENCH_PYTHON", TFBENCH_PYTHON);
}
std::string script_path() {
  return env_or("TFBENCH_NUMPY_PEER", TFBENCH_SOURCE_DIR "/scripts/numpy_peer.py");
}

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

}  // namespace

NumpyRunner& NumpyRunner::get() {
  static NumpyRunner runner(python_path(), script_path());
  return runner;
}

NumpyRunner::NumpyRunner(std::string python, std::string script)
    : python_(std::move(python)), script_(std::move(script)) {}

NumpyRunner::~NumpyRunner() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_locked();
}

void NumpyRunner::stop_locked() {
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
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  child_ = 0;
  pending_.clear();
}

void NumpyRunner::ensure_started_locked() {
  if (owner_ != getpid()) {
    // A forked child inherited the parent's runner: that process is not ours to talk to.
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    child_ = 0;
    pending_.clear();
    probed_ = false;
    unavailable_.reset();
    owner_ = getpid();
  }
  if (child_ > 0) return;

  const std::string& python = python_;
  const std::string& script = script_;
  if (access(python.c_str(), X_OK) != 0) throw WorkloadError("no Python interpreter at " + python);
  if (access(script.c_str(), R_OK) != 0) throw WorkloadError("NumPy runner script not found: " + script);

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw WorkloadError(errno_text("socketpair"));
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "PYTHONPATH=", 11) == 0 || std::strncmp(*e, "PYTHONHOME=", 11) == 0) continue;
    env_strings.emplace_back(*e);
  }
  env_strings.emplace_back("PYTHONUNBUFFERED=1");
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string arg0 = python, arg1 = "-u", arg2 = script;
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  // The worker's main thread may be pinned (OMP_PROC_BIND); NumPy gets every CPU the process may
  // use (the kernel intersects the set with the cgroup's).
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  for (long c = 0; c < configured && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &cpus);

  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw WorkloadError(errno_text("fork of the NumPy runner"));
  }
  if (pid == 0) {
    dup2(fds[1], 0);
    dup2(fds[1], 1);
    sched_setaffinity(0, sizeof(cpus), &cpus);
    execve(argv[0], argv, envp.data());
    _exit(127);
  }
  close(fds[1]);
  fd_ = fds[0];
  child_ = pid;
}

std::string NumpyRunner::exchange_locked(const std::string& line) {
  const std::string out = line + "\n";
  std::size_t sent = 0;
  while (sent < out.size()) {
    const ssize_t n = send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stop_locked();
      throw WorkloadError("the NumPy runner is gone (" + errno_text("send") + ")");
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
      throw WorkloadError("the NumPy runner did not answer '" + line + "' within " +
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
      close(fd_);
      fd_ = -1;
      child_ = 0;
      pending_.clear();
      throw WorkloadError("the NumPy runner (" + python_ + " " + script_ + ") " + why + " while answering '" +
                          line + "'");
    }
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

std::map<std::string, std::string> NumpyRunner::request(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_started_locked();
  const std::string reply = exchange_locked(line);
  if (reply.rfind("ok", 0) == 0) return parse_fields(reply.substr(2));
  if (reply.rfind("error ", 0) == 0) throw WorkloadError("NumPy peer: " + reply.substr(6));
  throw WorkloadError("NumPy peer: unexpected reply '" + reply + "' to '" + line + "'");
}

std::optional<std::string> NumpyRunner::unavailable() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (probed_ && owner_ == getpid()) return unavailable_;
  }
  std::optional<std::string> reason;
  NumpyInfo info;
  try {
    auto f = request("hello");
    info.numpy_version = f["numpy"];
    info.python_version = f["python"];
    info.blas = f["blas"];
    info.cpus = std::atoi(f["cpus"].c_str());
  } catch (const std::exception& e) {
    reason = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  probed_ = true;
  unavailable_ = reason;
  info_ = info;
  return unavailable_;
}

NumpyInfo NumpyRunner::info() {
  (void)unavailable();
  std::lock_guard<std::mutex> lock(mutex_);
  return info_;
}

int NumpyRunner::set_threads(int threads) {
  auto f = request("threads n=" + std::to_string(threads));
  return std::atoi(f["verified"].c_str());
}

// ---------------------------------------------------------------- shared file

SharedFile::SharedFile(std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 1)) {
  const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : env_or("TMPDIR", "/tmp");
  std::string templ = dir + "/tfbench-numpy-XXXXXX";
  const int fd = mkstemp(templ.data());
  if (fd < 0) throw WorkloadError(errno_text(("mkstemp in " + dir).c_str()));
  path_ = templ;
  if (ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
    const std::string why = errno_text("ftruncate of the NumPy operand file");
    close(fd);
    unlink(path_.c_str());
    throw WorkloadError(why);
  }
  data_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    unlink(path_.c_str());
    throw WorkloadError(errno_text("mmap of the NumPy operand file"));
  }
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

NumpyOperation::NumpyOperation(std::string fields, std::size_t bytes)
    : fields_(std::move(fields)), file_(bytes) {
  static std::atomic<long> next{0};
  id_ = std::to_string(++next);
}

NumpyOperation::~NumpyOperation() {
  if (!live_) return;
  try {
    NumpyRunner::get().request("release id=" + id_);
  } catch (...) {
    // The runner is gone: nothing left to release.
  }
}

int NumpyOperation::setup(int threads) {
  auto& runner = NumpyRunner::get();
  const int verified = runner.set_threads(threads);
  runner.request("setup id=" + id_ + " " + fields_ + " file=" + file_.path());
  live_ = true;
  file_.unlink_path();  // Python has mapped it
  return verified;
}

double NumpyOperation::timed(const char* command) {
  auto f = NumpyRunner::get().request(std::string(command) + " id=" + id_);
  return std::strtod(f["ns"].c_str(), nullptr) * 1e-9;
}

double NumpyOperation::run() {
  return timed("run");
}
double NumpyOperation::check() {
  return timed("check");
}

}  // namespace tfbench::workloads
