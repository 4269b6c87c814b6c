#include "run/ceilings_beside.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

namespace tfbench::harness::impl {

BesidePlan plan_ceilings_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                const workloads::Ceilings& ceilings, const workloads::Ceilings* one_thread) {
  BesidePlan plan;
  plan.reference_of_instance.assign(instances.size(), -1);
  plan.one_thread_reference_of_instance.assign(instances.size(), -1);
  plan.bounded.assign(instances.size(), false);
  if (ceilings.threads <= 0) return plan;
  // (kind, bandwidth working set or precision, threads) -> reference
  std::map<std::tuple<BesideKind, double, int>, int> known;
  const auto reference = [&](BesideKind kind, double key, int threads, auto&& make) {
    auto [it, added] = known.try_emplace({kind, key, threads}, static_cast<int>(plan.references.size()));
    if (added) {
      plan.references.push_back(make());
      plan.kinds.push_back(kind);
      const workloads::Work work = plan.references.back()->work();
      plan.work_per_run.push_back(kind == BesideKind::Peak ? work.flops : work.bytes);
    }
    return it->second;
  };
  // The reference of the ceiling that sets the bound of `c`'s threads for `work`: none without a
  // bound, -1 for a peak the BLAS GEMM set (the FMA chains would read below it).
  const auto ceiling_reference = [&](const workloads::Ceilings& c, const workloads::Work& work,
                                     double footprint) -> std::optional<int> {
    const auto bound = workloads::roofline_bound(c, work.flops, work.bytes, work.write_allocate_bytes,
                                                 footprint, work.precision);
    if (!bound) return std::nullopt;
    if (bound->compute_bound) {
      const bool f32 = work.precision == workloads::FlopPrecision::F32;
      if (c.peak_source(f32) != "fma") return -1;
      return reference(BesideKind::Peak, f32 ? 32.0 : 64.0, c.threads,
                       [&] { return workloads::peak_reference(work.precision, c.threads); });
    }
    const workloads::Ceiling& ceiling = c.bandwidth_at(bound->level, footprint);
    if (!(ceiling.working_set_bytes > 0)) return -1;
    return reference(BesideKind::Bandwidth, ceiling.working_set_bytes, c.threads, [&] {
      return workloads::bandwidth_reference(bound->level, ceiling.working_set_bytes, c.threads);
    });
  };
  // One thread's bound competes only in a worker of several threads that pays a handoff (roofline_bound).
  const bool spread = ceilings.threads > 1 && ceilings.handoff.measured();
  const bool single = spread && one_thread && one_thread->threads == 1;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    workloads::Work work;
    try {
      work = instances[i]->work();
    } catch (const std::exception&) {
      continue;  // collected after timing, where its error is recorded
    }
    const double footprint = work.working_set_bytes > 0 ? work.working_set_bytes : work.bytes;
    const std::optional<int> own = ceiling_reference(ceilings, work, footprint);
    if (!own) continue;
    plan.bounded[i] = true;
    plan.reference_of_instance[i] = *own;
    if (single)
      plan.one_thread_reference_of_instance[i] = ceiling_reference(*one_thread, work, footprint).value_or(-1);
  }
  const bool any_bounded = std::find(plan.bounded.begin(), plan.bounded.end(), true) != plan.bounded.end();
  if (any_bounded && spread) {
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

std::vector<double> round_rates(const std::vector<double>& samples_s, double work_per_run) {
  std::vector<double> rates;
  rates.reserve(samples_s.size());
  for (double s : samples_s)
    rates.push_back(s > 0 && work_per_run > 0 ? work_per_run / s / 1e9
                                              : std::numeric_limits<double>::quiet_NaN());
  return rates;
}

double best_round_rate(const std::vector<double>& samples_s, double work_per_run) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (double rate : round_rates(samples_s, work_per_run))
    if (std::isfinite(rate) && !(rate <= best)) best = rate;
  return best;
}

}  // namespace tfbench::harness::impl
