#include "tfbench/workloads/registry.hpp"

#include "ad/ad.hpp"
#include "bandwidth_control/bandwidth_control.hpp"
#include "batched_solve/batched_solve.hpp"
#include "compute_control/compute_control.hpp"
#include "contraction_replay/contraction_replay.hpp"
#include "packed_small/packed_small.hpp"
#include "resident_chain/resident_chain.hpp"
#include "resource_churn/resource_churn.hpp"
#include "session_overhead/session_overhead.hpp"

namespace tfbench::workloads {

const std::vector<const Family*>& families() {
  // An explicit list: static registration objects would be dropped from a static library.
  static const std::vector<const Family*> all = {
      &packed_small_family(),
      &contraction_replay_family(),
      &batched_solve_family(),
      &resident_chain_family(),
      &resource_churn_family(),
      &session_overhead_family(),
      &ad_family(),
      &compute_control_family(),
      &bandwidth_control_family(),
  };
  return all;
}

const Family* find_family(std::string_view name) {
  for (const Family* family : families()) {
    if (family->name() == name) return family;
  }
  return nullptr;
}

}  // namespace tfbench::workloads
