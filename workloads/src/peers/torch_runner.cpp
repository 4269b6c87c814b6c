#include "peers/torch_runner.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace tfbench::workloads {
namespace {

/// $TFBENCH_TORCH_PYTHON, else the first executable python3 on PATH (execve does not search PATH),
/// else the bare name, which then fails with the hint.
std::string torch_python() {
  const std::string chosen = env_or("TFBENCH_TORCH_PYTHON", "");
  if (!chosen.empty()) return chosen;
  std::istringstream path(env_or("PATH", ""));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/python3";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "python3 (none on PATH)";
}

}  // namespace

TorchRunner& TorchRunner::get() {
  static TorchRunner runner(torch_python(),
                            env_or("TFBENCH_TORCH_PEER", TFBENCH_SOURCE_DIR "/scripts/torch_peer.py"));
  return runner;
}

// The user's own interpreter keeps the user's PYTHONPATH: that may be where torch is.
TorchRunner::TorchRunner(std::string python, std::string script)
    : PythonPeerRunner({"torch", std::move(python), std::move(script), false,
                        " (set TFBENCH_TORCH_PYTHON to a Python with torch)"}) {}

TorchInfo TorchRunner::info() {
  auto f = hello();
  return {f["torch"], f["cuda"], f["device"], f["name"], f["cpu_name"], f["python"], f["executable"]};
}

std::optional<std::string> TorchRunner::unavailable_on(ExecSpaceKind space) {
  if (auto why = unavailable()) return why;
  if (is_host_space(space)) return std::nullopt;
  const TorchInfo i = info();
  if (i.device.rfind("cuda", 0) == 0) return std::nullopt;
  const std::string build = i.cuda_version == "none" || i.cuda_version.empty()
                                ? "a CPU-only build"
                                : "built for CUDA " + i.cuda_version;
  return "torch " + i.torch_version + " (" + build + ", " + i.executable +
         ") sees no CUDA device, and this case runs on " + name(space) + ": it would run on the CPU";
}

std::string TorchRunner::provider(ExecSpaceKind space) {
  if (unavailable_on(space)) return "torch";
  const TorchInfo i = info();
  if (is_host_space(space)) return "torch " + i.torch_version + " on cpu " + i.cpu_name;
  return "torch " + i.torch_version + " on " + i.device + " " + i.device_name;
}

std::map<std::string, double> TorchRunner::metrics(ExecSpaceKind space) {
  const TorchInfo i = info();
  return {{"torch_device_cuda", is_host_space(space) ? 0.0 : 1.0},
          {"torch_version", version_number(i.torch_version)},
          {"torch_cuda_version", version_number(i.cuda_version)}};
}

std::string torch_device_field(ExecSpaceKind space) {
  return is_host_space(space) ? "device=cpu" : "device=cuda";
}

double version_number(const std::string& version) {
  char* end = nullptr;
  const long major = std::strtol(version.c_str(), &end, 10);
  if (end == version.c_str()) return 0.0;
  if (*end != '.') return static_cast<double>(100 * major);
  const char* minor_text = end + 1;
  const long minor = std::strtol(minor_text, &end, 10);
  return static_cast<double>(100 * major + (end == minor_text ? 0 : minor));
}

}  // namespace tfbench::workloads
