#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace tfbench {

// Kokkos 4.0 removed InitArguments in favour of InitializationSettings (setters, optional fields).
KokkosRuntime::KokkosRuntime(const KokkosStartOptions& options) {
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings settings;
  if (options.num_threads > 0) settings.set_num_threads(options.num_threads);
  if (options.device_id >= 0) settings.set_device_id(options.device_id);
  settings.set_disable_warnings(options.disable_warnings);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments args;
  if (options.num_threads > 0) args.num_threads = options.num_threads;
  if (options.device_id >= 0) args.device_id = options.device_id;
  args.disable_warnings = options.disable_warnings;
  Kokkos::initialize(args);
#endif
}

KokkosRuntime::~KokkosRuntime() {
  Kokkos::finalize();
}

namespace {

#if defined(KOKKOS_ENABLE_CUDA)
/// 13000 -> "13.0" (CUDA's major * 1000 + minor * 10).
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cuda_device_description() {
  const int device = Kokkos::Cuda().cuda_device();
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess)
    return "CUDA device " + std::to_string(device) + " (its properties could not be read)";
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s (sm_%d%d, %d SMs, %.1f GiB, PCI %04x:%02x:%02x, driver %s, runtime %s)", p.name, p.major,
                p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024 * 1024), p.pciDomainID, p.pciBusID,
                p.pciDeviceID, cuda_version_text(driver).c_str(), cuda_version_text(runtime).c_str());
  return text;
}
#endif

}  // namespace

std::string device_description(ExecSpaceKind kind) {
  if (is_host_space(kind)) return "";
#if defined(KOKKOS_ENABLE_CUDA)
  if (kind == ExecSpaceKind::Cuda) return cuda_device_description();
#endif
  return name(kind);
}

}  // namespace tfbench
