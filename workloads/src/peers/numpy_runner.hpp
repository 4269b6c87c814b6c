#pragma once
// The NumPy peer: one persistent /usr/bin/python3 running scripts/numpy_peer.py per worker process,
// driven over a line protocol on a socket pair (its stdin/stdout). Operands travel through a
// shared file in /dev/shm; the Python side copies them into its own arrays and times the NumPy
// call alone with time.perf_counter_ns, so the round trip is never part of a sample.

#include "tfbench/workloads/family.hpp"

#include <sys/types.h>

#include <cstddef>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tfbench::workloads {

struct NumpyInfo {
  std::string numpy_version;
  std::string python_version;
  std::string blas;  // the BLAS NumPy loaded, as it describes itself
  int cpus = 0;      // CPUs in the Python process's affinity mask
};

class NumpyRunner {
 public:
  /// The runner of this process, started on first use (and again in a forked child). Its Python
  /// is $TFBENCH_PYTHON or /usr/bin/python3, its script $TFBENCH_NUMPY_PEER or the source tree's.
  static NumpyRunner& get();
  /// A runner of its own (tests: a missing interpreter or script).
  NumpyRunner(std::string python, std::string script);

  /// Empty when NumPy answered `hello`, else why the peer cannot run here.
  std::optional<std::string> unavailable();
  NumpyInfo info();
  /// Asks NumPy's BLAS for `threads` threads; returns the count it reports afterwards (0: unknown).
  int set_threads(int threads);
  /// One request line; the reply's key=value fields. Throws WorkloadError on an `error` reply or
  /// a dead process (which is then restarted on the next request).
  std::map<std::string, std::string> request(const std::string& line);

  ~NumpyRunner();
  NumpyRunner(const NumpyRunner&) = delete;
  NumpyRunner& operator=(const NumpyRunner&) = delete;

 private:
  void ensure_started_locked();
  void stop_locked();
  std::string exchange_locked(const std::string& line);

  std::string python_;
  std::string script_;
  std::mutex mutex_;
  pid_t owner_ = 0;  // the process that started the child
  pid_t child_ = 0;
  int fd_ = -1;
  std::string pending_;  // bytes read past the last reply line
  std::optional<std::string> unavailable_;
  NumpyInfo info_;
  bool probed_ = false;
};

/// Resources of a NumPy variant: allocations happen inside Python and are not counted (NaN); no
/// transfers.
inline ResourceCounts numpy_resources() {
  ResourceCounts r;
  r.allocations = r.pool_hits = r.bytes_retained = std::numeric_limits<double>::quiet_NaN();
  return r;
}

/// A /dev/shm file mapped into this process and named to the Python side.
class SharedFile {
 public:
  explicit SharedFile(std::size_t bytes);
  ~SharedFile();
  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;
  void* data() { return data_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// One operation set up in the runner: operands written into data() before setup(), the output
/// read back from data() after check().
class NumpyOperation {
 public:
  /// `fields`: "op=matmul dtype=float64 n=4 ..." (see scripts/numpy_peer.py).
  NumpyOperation(std::string fields, std::size_t bytes);
  ~NumpyOperation();
  NumpyOperation(const NumpyOperation&) = delete;
  NumpyOperation& operator=(const NumpyOperation&) = delete;

  void* data() { return file_.data(); }
  /// Hands the operands to Python (which copies them) with its BLAS at `threads` threads; returns
  /// the verified BLAS thread count.
  int setup(int threads);
  /// One timed run; seconds measured inside Python.
  double run();
  /// One run whose output Python writes back into data().
  double check();

 private:
  double timed(const char* command);
  std::string fields_;
  SharedFile file_;
  std::string id_;
  bool live_ = false;
};

}  // namespace tfbench::workloads
