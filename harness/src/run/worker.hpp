#pragma once
// The hidden `tfbench worker` subcommand: one process per thread configuration. It reads its job
// from stdin, initializes Kokkos with the requested threads, sets the BLAS threads, verifies both
// and the affinity mask, measures the machine ceilings, then checks and times its cases, reporting
// on `message_fd` (see protocol.hpp).

#include <optional>
#include <string>

namespace tfbench::harness::impl {

/// Returns the process exit code: 0 done, 2 unusable job, 3 verification failed.
int worker_main(int message_fd);

/// Why Kokkos must not be started with this many threads (nullopt: it may).
std::optional<std::string> kokkos_unstartable(int threads);

}  // namespace tfbench::harness::impl
