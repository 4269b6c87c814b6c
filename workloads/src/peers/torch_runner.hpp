#pragma once
// The PyTorch peer: scripts/torch_peer.py in one persistent Python per worker process (see
// python_peer.hpp for the protocol, the shared file and the timing inside Python). Its operands
// live on torch's CUDA device when torch sees one (else on the CPU), copied there once at set-up.

#include "peers/python_peer.hpp"

#include <map>
#include <memory>
#include <string>

namespace tfbench::workloads {

struct TorchInfo {
  std::string torch_version;  // torch.__version__, e.g. "2.11.0+cu130"
  std::string cuda_version;   // torch.version.cuda, "none" for a CPU-only torch
  std::string device;         // "cuda:0" or "cpu"
  std::string device_name;    // the GPU's name (spaces as '_'), or the CPU's
  std::string python_version;
  std::string executable;  // the interpreter's sys.executable
};

class TorchRunner : public PythonPeerRunner {
 public:
  /// The runner of this process. Its Python is $TFBENCH_TORCH_PYTHON, else the first python3 on
  /// PATH (torch is rarely in the system Python); its script $TFBENCH_TORCH_PEER or the source tree's.
  static TorchRunner& get();
  /// A runner of its own (tests: an interpreter without torch).
  TorchRunner(std::string python, std::string script);

  TorchInfo info();
  /// The variant's provider: "torch 2.11.0+cu130 on cuda:0 NVIDIA_H200" where torch answered,
  /// else "torch" (the row then records why not).
  std::string provider();
  /// The numbers a torch row records: torch_device_cuda (1/0), torch_version and
  /// torch_cuda_version as version_number()s.
  std::map<std::string, double> metrics();
};

/// A version as major * 100 + minor: "2.11.0+cu130" -> 211, "13.0" -> 1300; 0 for text without one.
double version_number(const std::string& version);

/// A variant in this process's torch runner, recording the runner's metrics.
class TorchPeerInstance : public PythonPeerInstance {
 public:
  TorchPeerInstance(std::string fields, std::size_t bytes)
      : PythonPeerInstance(TorchRunner::get(), std::move(fields), bytes) {}
  std::map<std::string, double> metrics() override { return TorchRunner::get().metrics(); }
};

/// A `Peer` built from `args` where the torch runner answers, else WorkloadError saying why not.
template <class Peer, class... Args>
std::unique_ptr<Instance> make_torch_peer(const Args&... args) {
  if (auto why = TorchRunner::get().unavailable()) throw WorkloadError(*why);
  return std::make_unique<Peer>(args...);
}

}  // namespace tfbench::workloads
