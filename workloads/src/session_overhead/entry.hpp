#pragma once
// The variants of session_overhead, one table per operation ("empty", "phase", "chain").

#include "common/variant_table.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfbench::workloads::session_overhead {

struct OverheadCase {
  std::string op;
  std::int64_t repeat = 1000;      // empty entries per iteration
  std::int64_t elements = 65536;   // elements per array of the phase and chain work
  std::int64_t chain_length = 10;  // operations of a chain
};

/// The variants of each operation (rows keep a copy of `c`; `ctx` must outlive the table).
VariantTable empty_table(const OverheadCase& c, const RunContext& ctx);
VariantTable chain_table(const OverheadCase& c, const RunContext& ctx);
VariantTable phase_table(const OverheadCase& c, const RunContext& ctx);

}  // namespace tfbench::workloads::session_overhead
