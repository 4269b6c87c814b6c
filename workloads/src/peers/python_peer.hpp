#pragma once
// A peer in a persistent Python process (scripts/numpy_peer.py, scripts/torch_peer.py): one per
// worker process and peer, driven over a line protocol on a socket pair (its stdin/stdout).
// Operands travel through a shared file in /dev/shm; the Python side copies them into memory of its
// own (arrays, device tensors) and times the call alone with time.perf_counter_ns, so the round
// trip is never part of a sample.

#include "tfbench/workloads/family.hpp"

#include <sys/types.h>

#include <cstddef>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tfbench::workloads {

struct PythonPeerConfig {
  std::string name;    // in messages ("NumPy") and, lower-cased, in the shared file's name
  std::string python;  // the interpreter (an absolute path)
  std::string script;
  /// Drops PYTHONPATH and PYTHONHOME from the child's environment: for a system interpreter that a
  /// user's pyenv/venv settings would otherwise point at foreign packages.
  bool clean_python_env = true;
  /// Appended to "no Python interpreter at ..." (e.g. which variable chooses another).
  std::string interpreter_hint;
};

class PythonPeerRunner {
 public:
  explicit PythonPeerRunner(PythonPeerConfig config);

  /// Empty when the peer answered `hello`, else why it cannot run here.
  std::optional<std::string> unavailable();
  /// The fields of the `hello` reply (empty when unavailable).
  std::map<std::string, std::string> hello();
  /// Asks for `threads` threads; returns the count the peer reports afterwards (0: unknown).
  int set_threads(int threads);
  /// One request line; the reply's key=value fields. Throws WorkloadError on an `error` reply or
  /// a dead process (which is then restarted on the next request).
  std::map<std::string, std::string> request(const std::string& line);
  const PythonPeerConfig& config() const { return config_; }

  ~PythonPeerRunner();
  PythonPeerRunner(const PythonPeerRunner&) = delete;
  PythonPeerRunner& operator=(const PythonPeerRunner&) = delete;

 private:
  void ensure_started_locked();
  void stop_locked();
  std::string exchange_locked(const std::string& line);

  PythonPeerConfig config_;
  std::mutex mutex_;
  pid_t owner_ = 0;  // the process that started the child
  pid_t child_ = 0;
  int fd_ = -1;
  std::string pending_;  // bytes read past the last reply line
  std::optional<std::string> unavailable_;
  std::map<std::string, std::string> hello_;
  bool probed_ = false;
};

/// `$variable` when set and not empty, else `fallback`.
std::string env_or(const char* variable, const char* fallback);

/// Resources of a variant in a Python peer: allocations happen inside Python and are not counted
/// (NaN); no transfers per iteration.
inline ResourceCounts python_peer_resources() {
  ResourceCounts r;
  r.allocations = r.pool_hits = r.bytes_retained = std::numeric_limits<double>::quiet_NaN();
  return r;
}

/// A file in /dev/shm (else $TMPDIR; $TFBENCH_SHM_DIR overrides both) mapped into this process and
/// named to the Python side, its pages reserved: a directory without room for it is an error (the
/// next directory is tried), never a SIGBUS at the first write past the room.
class SharedFile {
 public:
  /// `tag`: part of the file's name ("tfbench-<tag>-XXXXXX").
  SharedFile(std::size_t bytes, const std::string& tag);
  /// In the first of `directories` with room for it; WorkloadError naming each one's failure.
  SharedFile(std::size_t bytes, const std::string& tag, const std::vector<std::string>& directories);
  /// $TFBENCH_SHM_DIR alone when set, else /dev/shm, then $TMPDIR (else /tmp).
  static std::vector<std::string> default_directories();
  ~SharedFile();
  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;
  void* data() { return data_; }
  const std::string& path() const { return path_; }
  /// Removes the name once the other side has mapped the file: the mappings keep it alive, and a
  /// crash can then leave nothing behind in /dev/shm.
  void unlink_path();

 private:
  std::string path_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool linked_ = true;
};

/// One operation set up in a runner: operands written into data() before setup(), the output read
/// back from data() after check().
class PeerOperation {
 public:
  /// `fields`: "op=matmul dtype=float64 n=4 ..." (see the peer's script).
  PeerOperation(PythonPeerRunner& runner, std::string fields, std::size_t bytes);
  ~PeerOperation();
  PeerOperation(const PeerOperation&) = delete;
  PeerOperation& operator=(const PeerOperation&) = delete;

  void* data() { return file_.data(); }
  /// Hands the operands to Python (which copies them) with its threads at `threads`; returns the
  /// verified thread count.
  int setup(int threads);
  /// One timed run; seconds measured inside Python.
  double run();
  /// One run whose output Python writes back into data().
  double check();

 private:
  double timed(const char* command);
  PythonPeerRunner& runner_;
  std::string fields_;
  SharedFile file_;
  std::string id_;
  bool live_ = false;
};

/// The parts of a peer Instance that every Python peer shares: the run, its own clock, resources.
class PythonPeerInstance : public Instance {
 public:
  PythonPeerInstance(PythonPeerRunner& runner, std::string fields, std::size_t bytes)
      : op_(runner, std::move(fields), bytes) {}
  void run() override { last_ = op_.run(); }
  std::optional<double> self_timed_seconds() const override { return last_; }
  ResourceCounts resources() override { return python_peer_resources(); }

 protected:
  /// The output, written back by Python, at `offset` elements of T into the shared file.
  template <class T>
  const T* checked_output(std::size_t offset) {
    last_ = op_.check();
    return static_cast<const T*>(op_.data()) + offset;
  }
  PeerOperation op_;
  double last_ = 0.0;
};

}  // namespace tfbench::workloads
