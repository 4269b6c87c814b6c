#pragma once
// The NumPy peer: scripts/numpy_peer.py in one persistent /usr/bin/python3 per worker process (see
// python_peer.hpp for the protocol, the shared file and the timing inside Python).

#include "peers/python_peer.hpp"

#include <string>

namespace tfbench::workloads {

struct NumpyInfo {
  std::string numpy_version;
  std::string python_version;
  std::string blas;  // the BLAS NumPy loaded, as it describes itself
  int cpus = 0;      // CPUs in the Python process's affinity mask
};

class NumpyRunner : public PythonPeerRunner {
 public:
  /// The runner of this process, started on first use (and again in a forked child). Its Python
  /// is $TFBENCH_PYTHON or /usr/bin/python3, its script $TFBENCH_NUMPY_PEER or the source tree's.
  static NumpyRunner& get();
  /// A runner of its own (tests: a missing interpreter or script).
  NumpyRunner(std::string python, std::string script);

  NumpyInfo info();
};

inline ResourceCounts numpy_resources() {
  return python_peer_resources();
}

/// An operation in this process's NumPy runner.
class NumpyOperation : public PeerOperation {
 public:
  NumpyOperation(std::string fields, std::size_t bytes)
      : PeerOperation(NumpyRunner::get(), std::move(fields), bytes) {}
};

}  // namespace tfbench::workloads
