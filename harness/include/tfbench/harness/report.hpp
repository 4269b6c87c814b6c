#pragma once
// `tfbench report`: a readable summary of a result file, per run and per worker configuration.

#include "tfbench/harness/results.hpp"

#include <ostream>

namespace tfbench::harness {

void print_report(const ResultsFile& file, std::ostream& out, bool markdown);

}  // namespace tfbench::harness
