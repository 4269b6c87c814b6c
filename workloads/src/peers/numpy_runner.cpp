#include "peers/numpy_runner.hpp"

#include <cstdlib>

namespace tfbench::workloads {

NumpyRunner& NumpyRunner::get() {
  static NumpyRunner runner(env_or("TFBENCH_PYTHON", TFBENCH_PYTHON),
                            env_or("TFBENCH_NUMPY_PEER", TFBENCH_SOURCE_DIR "/scripts/numpy_peer.py"));
  return runner;
}

NumpyRunner::NumpyRunner(std::string python, std::string script)
    : PythonPeerRunner({"NumPy", std::move(python), std::move(script), true, ""}) {}

NumpyInfo NumpyRunner::info() {
  auto f = hello();
  NumpyInfo info;
  info.numpy_version = f["numpy"];
  info.python_version = f["python"];
  info.blas = f["blas"];
  info.cpus = std::atoi(f["cpus"].c_str());
  return info;
}

}  // namespace tfbench::workloads
