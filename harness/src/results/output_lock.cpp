#include "results/output_lock.hpp"

#include "results/atomic_write.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

namespace tfbench::harness::impl {
namespace {

struct Holder {
  std::string text;  // the whole lock file: compared to tell one holder from another
  long pid = 0;
  std::string host, since, command;
};

std::optional<Holder> read_holder(const std::string& lock_path) {
  std::ifstream in(lock_path);
  if (!in) return std::nullopt;
  Holder h;
  std::stringstream all;
  all << in.rdbuf();
  h.text = all.str();
  std::istringstream lines(h.text);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "pid") h.pid = std::strtol(value.c_str(), nullptr, 10);
    if (key == "host") h.host = value;
    if (key == "since") h.since = value;
    if (key == "command") h.command = value;
  }
  return h;
}

/// A killed process that its parent has not reaped yet: signals still reach its pid.
bool is_zombie(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto end_of_name = stat.rfind(')');
  return end_of_name != std::string::npos && stat.compare(end_of_name, 3, ") Z") == 0;
}

/// False only when the holder is certainly gone: a process of this host that no longer exists.
/// (A pid reused by an unrelated process reads as alive: the lock then has to be removed by hand.)
bool may_be_alive(const Holder& h) {
  if (h.host != host_name() || h.pid <= 0) return true;
  if (kill(static_cast<pid_t>(h.pid), 0) != 0 && errno != EPERM) return false;
  return !is_zombie(h.pid);
}

std::string describe(const Holder& h) {
  return "pid " + std::to_string(h.pid) + " on host " + h.host +
         (h.since.empty() ? "" : " since " + h.since) + (h.command.empty() ? "" : " (" + h.command + ")");
}

/// Creates the lock file with `text`; false when it exists.
bool try_create(const std::string& lock_path, const std::string& text) {
  const int fd = open(lock_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) return false;
  if (fd < 0) throw ResultsError("cannot create the lock file " + lock_path + ": " + errno_text(errno));
  const ssize_t n = write(fd, text.data(), text.size());
  const int error = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : ENOSPC);
  close(fd);
  if (error != 0) {
    unlink(lock_path.c_str());
    throw ResultsError("cannot write the lock file " + lock_path + ": " + errno_text(error));
  }
  return true;
}

}  // namespace

OutputLock::OutputLock(const std::string& path, const std::string& command) : lock_path_(path + ".lock") {
  std::string one_line = command;
  for (char& c : one_line) c = c == '\n' ? ' ' : c;
  text_ = "pid=" + std::to_string(getpid()) + "\nhost=" + host_name() + "\nsince=" + utc_now_iso() +
          "\ncommand=" + one_line + "\n";
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (try_create(lock_path_, text_)) return;
    auto holder = read_holder(lock_path_);
    if (!holder) continue;  // removed meanwhile: try again
    if (holder->pid <= 0) {
      // Created but not yet written by its holder, or damaged: look again shortly.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (attempt < 19) continue;
      throw ResultsError(path + " is locked by " + lock_path_ +
                         ", which names no writer; if no tfbench writes " + path + ", remove the lock file");
    }
    if (may_be_alive(*holder)) {
      const bool here = holder->host == host_name();
      throw ResultsError(path + " is being written by " + describe(*holder) + "; lock file " + lock_path_ +
                         (here ? "" : " (if that process is gone, remove the lock file)"));
    }
    // Stale: move it aside atomically, so that of several processes taking it over only one
    // succeeds, and make sure what was moved is the dead writer's lock, not a new live one.
    const std::string aside = lock_path_ + ".stale-" + std::to_string(getpid());
    if (rename(lock_path_.c_str(), aside.c_str()) != 0) continue;
    const auto moved = read_holder(aside);
    if (!moved || moved->text != holder->text) {
      if (link(aside.c_str(), lock_path_.c_str()) != 0) {  // not ours to remove: put it back
      }
      unlink(aside.c_str());
      continue;
    }
    unlink(aside.c_str());
    stale_pid_ = holder->pid;
    note_ = "took over the stale lock " + lock_path_ + " of " + describe(*holder) +
            ": that process no longer runs";
  }
  throw ResultsError("cannot take the lock file " + lock_path_ + ": it keeps changing");
}

OutputLock::~OutputLock() {
  const auto holder = read_holder(lock_path_);
  if (holder && holder->text == text_) unlink(lock_path_.c_str());
}

}  // namespace tfbench::harness::impl
