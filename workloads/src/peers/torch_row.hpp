#pragma once
// The peer:torch row of the families torch takes part in: available where a Python with torch
// answers for the case's space, and named by torch itself (its version and device).

#include "common/variant_table.hpp"
#include "peers/torch_runner.hpp"

#include <utility>

namespace tfbench::workloads {

/// The row of a case on `space`: torch runs it there (a host space's on the CPU, a device space's
/// on torch's GPU, unavailable where torch sees none).
inline VariantRow torch_row(Factory make, ExecSpaceKind space) {
  VariantRow row = peer_row("peer:torch", "torch", std::move(make),
                            [space] { return TorchRunner::get().unavailable_on(space); });
  row.ask_provider = [space] { return TorchRunner::get().provider(space); };
  return row;
}

}  // namespace tfbench::workloads
