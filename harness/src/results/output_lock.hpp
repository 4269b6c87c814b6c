#pragma once
// The advisory lock of a result file being written: `<file>.lock`, created with O_CREAT | O_EXCL
// (atomic on local filesystems and on NFS v3 and later) and holding the writer's pid, host, start
// time and command. It keeps a second writer (`run --overwrite`, `merge -o`) off a file that a run
// is still writing; readers ignore it.

#include <string>

namespace tfbench::harness::impl {

class OutputLock {
 public:
  /// Takes the lock of `path` or throws ResultsError naming its holder. A lock left by a process of
  /// this host that no longer runs is taken over, and note() says so.
  OutputLock(const std::string& path, const std::string& command);
  ~OutputLock();  // removes the lock file if it is still ours
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::string& lock_path() const { return lock_path_; }
  /// What taking the lock had to do, e.g. take over a stale lock; empty normally.
  const std::string& note() const { return note_; }
  /// The pid of the dead writer whose lock was taken over, 0 if none.
  long stale_pid() const { return stale_pid_; }

 private:
  std::string lock_path_, text_, note_;
  long stale_pid_ = 0;
};

}  // namespace tfbench::harness::impl
