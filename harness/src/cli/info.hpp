#pragma once
// `tfbench info`: what this build and machine offer (Kokkos spaces and their concurrency, BLAS and
// its threads, compiler, CPU).

#include <ostream>

namespace tfbench::harness {

/// Prints the report; Kokkos must be initialized.
void print_info(std::ostream& out);

}  // namespace tfbench::harness
