#include "tfbench/harness/isa.hpp"

#include "isa/gate.hpp"
#include "tfbench/harness/results.hpp"

namespace tfbench::harness {
namespace {

std::string without_trailing_comma(std::string list) {
  if (!list.empty() && list.back() == ',') list.pop_back();
  return list;
}

}  // namespace

IsaInfo isa_info() {
  IsaInfo info;
  info.build_arch = impl::isa_build_arch();
  info.build_host_cpu = impl::isa_build_host_cpu();
  info.required = without_trailing_comma(impl::isa_required_list);
  info.build_host = without_trailing_comma(impl::isa_build_host_list);
  info.run_host = without_trailing_comma(impl::isa_run_host_list());
  char missing[512];
  impl::isa_missing(impl::isa_required_list, impl::isa_run_host_list(), missing, sizeof(missing));
  info.missing = missing;
  return info;
}

void record_isa(RunInfo& info) {
  const IsaInfo isa = isa_info();
  info.build_cpu_model = isa.build_host_cpu;
  info.build_arch = isa.build_arch;
  info.build_isa = isa.required;
  info.build_host_isa = isa.build_host;
  info.run_isa = isa.run_host;
  // A run with a missing extension got past the gate only by the override.
  if (!isa.missing.empty()) info.isa_mismatch = isa.missing + " (TFBENCH_ALLOW_ISA_MISMATCH=1)";
}

}  // namespace tfbench::harness
