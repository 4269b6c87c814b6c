#include "run/bandwidth_beside.hpp"

#include <cmath>
#include <exception>
#include <limits>
#include <map>

namespace tfbench::harness::impl {

BesidePlan plan_bandwidth_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                 const workloads::Ceilings& ceilings) {
  BesidePlan plan;
  plan.reference_of_instance.assign(instances.size(), -1);
  if (ceilings.threads <= 0) return plan;
  std::map<double, int> by_working_set;  // the ceiling's working set -> reference
  for (std::size_t i = 0; i < instances.size(); ++i) {
    workloads::Work work;
    try {
      work = instances[i]->work();
    } catch (const std::exception&) {
      continue;  // collected after timing, where its error is recorded
    }
    if (!(work.bytes > 0)) continue;
    const double footprint = work.working_set_bytes > 0 ? work.working_set_bytes : work.bytes;
    const auto bound = workloads::roofline_bound(ceilings, work.flops, work.bytes, work.write_allocate_bytes,
                                                 footprint, work.precision);
    if (!bound || bound->compute_bound) continue;
    const workloads::Ceiling& ceiling = ceilings.bandwidth_at(bound->level, footprint);
    if (!(ceiling.working_set_bytes > 0)) continue;
    auto [it, added] =
        by_working_set.try_emplace(ceiling.working_set_bytes, static_cast<int>(plan.references.size()));
    if (added)
      plan.references.push_back(
          workloads::bandwidth_reference(bound->level, ceiling.working_set_bytes, ceilings.threads));
    plan.reference_of_instance[i] = it->second;
  }
  return plan;
}

double best_round_gbs(const std::vector<double>& samples_s, double bytes_per_run) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (double s : samples_s) {
    if (!(s > 0) || !(bytes_per_run > 0)) continue;
    const double gbs = bytes_per_run / s / 1e9;
    if (!(gbs <= best)) best = gbs;
  }
  return best;
}

}  // namespace tfbench::harness::impl
