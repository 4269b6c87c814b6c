#pragma once
// The hidden `tfbench worker` subcommand: one process per thread configuration. It reads its job
// from stdin, initializes Kokkos with the requested threads, sets the BLAS threads, verifies both
// and the affinity mask, measures the machine ceilings, then checks and times its cases, reporting
// on `message_fd` (see protocol.hpp).

namespace tfbench::harness::impl {

/// Returns the process exit code: 0 done, 2 unusable job, 3 verification failed.
int worker_main(int message_fd);

}  // namespace tfbench::harness::impl
