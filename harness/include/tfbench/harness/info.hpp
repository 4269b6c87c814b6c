#pragma once
// `tfbench info`: what this build and machine offer (Kokkos spaces and their concurrency, BLAS and
// its threads, compiler, CPU), and what workers verify at each thread configuration.

#include "tfbench/harness/runner.hpp"

#include <ostream>
#include <vector>

namespace tfbench::harness {

/// Prints the build and machine report; Kokkos must be initialized.
void print_info(std::ostream& out);

/// Prints what each worker verified (threads, Kokkos, BLAS, affinity).
void print_verified_workers(const std::vector<VerifiedWorker>& workers, std::ostream& out);

}  // namespace tfbench::harness
