#include "run/ceilings_beside.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace tfbench::harness::impl {

BesidePlan plan_ceilings_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                const workloads::Ceilings& ceilings) {
  BesidePlan plan;
  plan.reference_of_instance.assign(instances.size(), -1);
  plan.bounded.assign(instances.size(), false);
  if (ceilings.threads <= 0) return plan;
  // (kind, bandwidth working set or precision) -> reference
  std::map<std::tuple<BesideKind, double>, int> known;
  const auto reference = [&](BesideKind kind, double key, auto&& make) {
    auto [it, added] = known.try_emplace({kind, key}, static_cast<int>(plan.references.size()));
    if (added) {
      plan.references.push_back(make());
      plan.kinds.push_back(kind);
      const workloads::Work work = plan.references.back()->work();
      plan.work_per_run.push_back(kind == BesideKind::Peak ? work.flops : work.bytes);
    }
    return it->second;
  };
  for (std::size_t i = 0; i < instances.size(); ++i) {
    workloads::Work work;
    try {
      work = instances[i]->work();
    } catch (const std::exception&) {
      continue;  // collected after timing, where its error is recorded
    }
    const double footprint = work.working_set_bytes > 0 ? work.working_set_bytes : work.bytes;
    const auto bound = workloads::roofline_bound(ceilings, work.flops, work.bytes, work.write_allocate_bytes,
                                                 footprint, work.precision);
    if (!bound) continue;
    plan.bounded[i] = true;
    if (bound->compute_bound) {
      const bool f32 = work.precision == workloads::FlopPrecision::F32;
      if (ceilings.peak_source(f32) != "fma") continue;
      plan.reference_of_instance[i] = reference(BesideKind::Peak, f32 ? 32.0 : 64.0, [&] {
        return workloads::peak_reference(work.precision, ceilings.threads);
      });
      continue;
    }
    const workloads::Ceiling& ceiling = ceilings.bandwidth_at(bound->level, footprint);
    if (!(ceiling.working_set_bytes > 0)) continue;
    plan.reference_of_instance[i] = reference(BesideKind::Bandwidth, ceiling.working_set_bytes, [&] {
      return workloads::bandwidth_reference(bound->level, ceiling.working_set_bytes, ceilings.threads);
    });
  }
  const bool any_bounded = std::find(plan.bounded.begin(), plan.bounded.end(), true) != plan.bounded.end();
  if (any_bounded && ceilings.threads > 1 && ceilings.handoff.measured()) {
    workloads::HandoffReference handoff = workloads::handoff_reference(ceilings.threads);
    if (handoff.instance) {
      plan.handoff = static_cast<int>(plan.references.size());
      plan.references.push_back(std::move(handoff.instance));
      plan.kinds.push_back(BesideKind::Handoff);
      plan.work_per_run.push_back(handoff.round_trips_per_run);
    }
  }
  return plan;
}

double best_round_rate(const std::vector<double>& samples_s, double work_per_run) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (double s : samples_s) {
    if (!(s > 0) || !(work_per_run > 0)) continue;
    const double rate = work_per_run / s / 1e9;
    if (!(rate <= best)) best = rate;
  }
  return best;
}

}  // namespace tfbench::harness::impl
