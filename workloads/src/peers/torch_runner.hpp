#pragma once
// The PyTorch peer: scripts/torch_peer.py in one persistent Python per worker process (see
// python_peer.hpp for the protocol, the shared file and the timing inside Python). Its operands
// live where the case runs, copied there once at set-up: on torch's CUDA device for a device-space
// case (unavailable where torch sees none), on the CPU for a host-space case, beside a GPU too.

#include "peers/python_peer.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tfbench::workloads {

struct TorchInfo {
  std::string torch_version;  // torch.__version__, e.g. "2.11.0+cu130"
  std::string cuda_version;   // torch.version.cuda, "none" for a CPU-only torch
  std::string device;         // the device torch would choose: "cuda:0" or "cpu"
  std::string device_name;    // its name (spaces as '_')
  std::string cpu_name;       // the CPU's name (spaces as '_')
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
  /// Why torch cannot serve a case on `space`: the runner's reason, or for a device space a torch
  /// that sees no CUDA device. Empty: it can.
  std::optional<std::string> unavailable_on(ExecSpaceKind space);
  /// The variant's provider on `space`: "torch 2.11.0+cu130 on cuda:0 NVIDIA_H200" or "torch
  /// 2.11.0+cu130 on cpu AMD_EPYC_9654" where torch answered, else "torch" (the row then records
  /// why not).
  std::string provider(ExecSpaceKind space);
  /// The numbers a torch row records: torch_device_cuda (1: its operands on the GPU, 0: the CPU),
  /// torch_version and torch_cuda_version as version_number()s.
  std::map<std::string, double> metrics(ExecSpaceKind space);
};

/// The setup field that places a case's operation: "device=cuda" for a device space, else
/// "device=cpu".
std::string torch_device_field(ExecSpaceKind space);

/// A version as major * 100 + minor: "2.11.0+cu130" -> 211, "13.0" -> 1300; 0 for text without one.
double version_number(const std::string& version);

/// A variant in this process's torch runner on the device of the case's space, recording the
/// runner's metrics and torch's threads (they compute a host-space case).
class TorchPeerInstance : public PythonPeerInstance {
 public:
  TorchPeerInstance(const std::string& fields, std::size_t bytes, const RunContext& ctx)
      : PythonPeerInstance(TorchRunner::get(), fields + " " + torch_device_field(ctx.space), bytes),
        space_(ctx.space),
        requested_threads_(ctx.threads) {}
  std::map<std::string, double> metrics() override {
    auto m = TorchRunner::get().metrics(space_);
    m["torch_threads_requested"] = requested_threads_;
    m["torch_threads"] = verified_threads_;
    return m;
  }

 protected:
  /// Hands the operands (written into data()) to torch, with the worker's thread budget.
  void setup() { verified_threads_ = op_.setup(requested_threads_); }

 private:
  ExecSpaceKind space_;
  int requested_threads_;
  int verified_threads_ = 0;  // torch.get_num_threads() after the request
};

/// A `Peer` built from `shape` and `ctx` where torch can serve the case's space, else
/// WorkloadError saying why not.
template <class Peer, class Shape>
std::unique_ptr<Instance> make_torch_peer(const Shape& shape, const RunContext& ctx) {
  if (auto why = TorchRunner::get().unavailable_on(ctx.space)) throw WorkloadError(*why);
  return std::make_unique<Peer>(shape, ctx);
}

}  // namespace tfbench::workloads
