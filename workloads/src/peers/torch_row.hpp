#pragma once
// The peer:torch row of the families torch takes part in: available where a Python with torch
// answers, and named by torch itself (its version and device).

#include "common/variant_table.hpp"
#include "peers/torch_runner.hpp"

#include <utility>

namespace tfbench::workloads {

inline VariantRow torch_row(Factory make) {
  VariantRow row =
      peer_row("peer:torch", "torch", std::move(make), [] { return TorchRunner::get().unavailable(); });
  row.ask_provider = [] { return TorchRunner::get().provider(); };
  return row;
}

}  // namespace tfbench::workloads
