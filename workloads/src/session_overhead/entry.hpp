#pragma once
// The variants of session_overhead, one factory per operation ("empty", "phase", "chain").

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

std::vector<VariantInfo> empty_variants();
std::unique_ptr<Instance> make_empty(const OverheadCase& c, const std::string& variant,
                                     const RunContext& ctx);

std::vector<VariantInfo> chain_variants();
std::unique_ptr<Instance> make_chain(const OverheadCase& c, const std::string& variant,
                                     const RunContext& ctx);

std::vector<VariantInfo> phase_variants();
std::unique_ptr<Instance> make_phase(const OverheadCase& c, const std::string& variant,
                                     const RunContext& ctx);

}  // namespace tfbench::workloads::session_overhead
