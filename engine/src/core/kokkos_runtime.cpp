#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>

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

}  // namespace tfbench
