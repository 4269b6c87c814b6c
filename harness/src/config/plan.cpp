#include "tfbench/harness/plan.hpp"
#include "tfbench/engine/core/exec_space.hpp"

#include "tfbench/harness/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace tfbench::harness {

std::string case_id(const CaseGroup& group, const std::string& variant) {
  return group.group_id + "/" + variant;
}

double expected_case_seconds(const CaseGroup& group) {
  return static_cast<double>(group.variants.size()) * (group.repetitions + 2.5) * group.min_time;
}

double expected_row_seconds(const CaseGroup& group, const workloads::VariantInfo& variant,
                            const EstimateCosts& costs) {
  if (variant.unavailable) return costs.skipped_row_s;
  return (group.repetitions + 2.5) * group.min_time + costs.row_setup_s;
}

double expected_worker_seconds(bool measure_ceilings, const EstimateCosts& costs) {
  return costs.worker_start_s + (measure_ceilings ? costs.ceilings_s : 0.0);
}

RunEstimate estimate_run(const RunPlan& plan, const MeasuresCeilingsFn& measures_ceilings, bool ceilings,
                         const EstimateCosts& costs) {
  RunEstimate e;
  e.ceilings = ceilings;
  for (const auto& w : plan.workers) {
    ++e.workers;
    const bool measures = measures_ceilings && measures_ceilings(w);
    if (measures) ++e.ceilings_measured;
    e.workers_s += expected_worker_seconds(measures, costs);
    for (const auto& g : w.groups) {
      bool runnable = false;
      for (const auto& v : g.variants) {
        ++(v.unavailable ? e.skipped : e.measured);
        runnable = runnable || !v.unavailable;
        e.rows_s += expected_row_seconds(g, v, costs);
      }
      // Like one more row per reference: the ceiling of the rows' bound, and in a worker of several
      // threads the handoff and one thread's ceiling (ceilings_beside.hpp).
      const int references = w.threads > 1 ? 3 : 1;
      if (ceilings && runnable && is_host_space(w.space))
        e.beside_s += references * ((g.repetitions + 2.5) * g.min_time + costs.row_setup_s);
    }
  }
  return e;
}

RunEstimate estimate_run(const RunPlan& plan, bool measure_ceilings, const EstimateCosts& costs) {
  return estimate_run(
      plan, [measure_ceilings](const WorkerPlan&) { return measure_ceilings; }, measure_ceilings, costs);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) return "-";
  if (seconds < 59.5) return format_seconds(seconds);
  char buf[48];
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) {
    std::snprintf(buf, sizeof(buf), "%lld min %02lld s", whole / 60, whole % 60);
  } else {
    const long long minutes = (whole + 30) / 60;
    std::snprintf(buf, sizeof(buf), "%lld h %02lld min", minutes / 60, minutes % 60);
  }
  return buf;
}

std::string describe(const RunEstimate& e) {
  std::string text = "about " + format_duration(e.total_s()) + " (" + std::to_string(e.measured) +
                     " row(s) to measure: " + format_duration(e.rows_s);
  if (e.skipped > 0) text += "; " + std::to_string(e.skipped) + " skipped";
  if (e.beside_s > 0) text += "; the ceilings beside them: " + format_duration(e.beside_s);
  std::string ceilings;
  if (e.ceilings && e.ceilings_measured == e.workers) {
    ceilings = " with ceilings";
  } else if (e.ceilings_measured > 0) {
    ceilings = ", " + std::to_string(e.ceilings_measured) + " measuring ceilings, the others cached";
  } else if (e.ceilings) {
    ceilings = ", ceilings cached";
  }
  return text + "; " + std::to_string(e.workers) + " worker start(s)" + ceilings + ": " +
         format_duration(e.workers_s) + ")";
}

double case_time_limit(const CaseGroup& group) {
  if (group.case_timeout) return *group.case_timeout;
  constexpr double kBaseLimit = 60.0;  // asv's default timeout per benchmark
  return kBaseLimit * std::max(1.0, expected_case_seconds(group));
}

std::size_t WorkerPlan::row_count() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.variants.size();
  return n;
}

std::size_t RunPlan::row_count() const {
  std::size_t n = 0;
  for (const auto& w : workers) n += w.row_count();
  return n;
}

bool runs_on_host(const RunPlan& plan) {
  return std::any_of(plan.workers.begin(), plan.workers.end(),
                     [](const WorkerPlan& w) { return is_host_space(w.space); });
}

RunPlan make_plan(const std::vector<Config>& configs, const RunOverrides& overrides) {
  std::optional<std::regex> filter;
  if (overrides.filter) {
    try {
      filter.emplace(*overrides.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument("--filter '" + *overrides.filter +
                                  "' is not a valid regular expression: " + e.what());
    }
  }
  RunPlan plan;
  std::map<std::pair<ExecSpaceKind, int>, std::size_t> worker_index;
  // (worker, group id) -> position of the group in its worker, and where it was first defined.
  std::map<std::tuple<std::size_t, std::string>, std::size_t> group_index;
  std::set<std::string> repeated;

  for (const Config& config : configs) {
    for (const BenchmarkBlock& block : config.blocks) {
      const auto points = block.expand();
      const auto spaces = overrides.space ? std::vector<ExecSpaceKind>{*overrides.space} : block.spaces;
      const auto threads = overrides.threads ? *overrides.threads : block.threads;
      for (ExecSpaceKind space : spaces) {
        for (int t : threads) {
          const auto [wit, fresh] = worker_index.emplace(std::make_pair(space, t), plan.workers.size());
          if (fresh) {
            WorkerPlan w;
            w.space = space;
            w.threads = t;
            plan.workers.push_back(std::move(w));
          }
          WorkerPlan& worker = plan.workers[wit->second];
          workloads::RunContext ctx;
          ctx.space = space;
          ctx.threads = t;
          for (const auto& params : points) {
            CaseGroup group;
            group.family = block.family;
            group.params = params;
            group.group_id = std::string(block.family->name()) + "/" + params.canonical();
            group.repetitions = overrides.repetitions.value_or(block.repetitions);
            group.min_time = overrides.min_time.value_or(block.min_time);
            group.threshold_pct = block.threshold_pct;
            group.case_timeout = overrides.case_timeout ? overrides.case_timeout : block.case_timeout;
            group.where = block.where;
            // Only the selected variants are asked whether they can run: a peer left out by the
            // patterns starts no Python here or in the query workers.
            const auto selected = [&](const std::string& variant) {
              if (!block.variant_patterns.empty() &&
                  std::none_of(block.variant_patterns.begin(), block.variant_patterns.end(),
                               [&](const std::string& p) { return glob_match(p, variant); }))
                return false;
              return !filter || std::regex_search(case_id(group, variant), *filter);
            };
            for (auto& v : block.family->selected_variants(params, ctx, selected))
              group.variants.push_back(std::move(v));
            if (group.variants.empty()) continue;
            const auto key = std::make_tuple(wit->second, group.group_id);
            const auto git = group_index.find(key);
            if (git == group_index.end()) {
              group_index.emplace(key, worker.groups.size());
              worker.groups.push_back(std::move(group));
              continue;
            }
            // The same case from another block: keep the first definition of every variant.
            CaseGroup& first = worker.groups[git->second];
            for (auto& v : group.variants) {
              const bool known =
                  std::any_of(first.variants.begin(), first.variants.end(),
                              [&](const workloads::VariantInfo& f) { return f.name == v.name; });
              if (known) {
                if (repeated.insert(case_id(group, v.name)).second) {
                  plan.notes.push_back(case_id(group, v.name) + " is defined again at " +
                                       group.where.to_string() + "; the first definition (" +
                                       first.where.to_string() + ") is used");
                }
              } else {
                first.variants.push_back(std::move(v));
              }
            }
          }
        }
      }
    }
  }
  plan.workers.erase(std::remove_if(plan.workers.begin(), plan.workers.end(),
                                    [](const WorkerPlan& w) { return w.groups.empty(); }),
                     plan.workers.end());
  return plan;
}

void print_plan(const RunPlan& plan, std::ostream& out, const RunEstimate& estimate) {
  for (const auto& w : plan.workers) {
    for (const auto& g : w.groups) {
      for (const auto& v : g.variants) {
        out << "threads=" << w.threads << " " << name(w.space) << "  " << case_id(g, v.name) << "  ("
            << workloads::name(v.kind) << (v.provider.empty() ? "" : ", " + v.provider)
            << (v.strategy.empty() ? "" : ", strategy " + v.strategy) << "; " << g.repetitions << " x "
            << format_number(g.min_time, 3) << " s"
            << (g.threshold_pct ? "; threshold " + format_number(*g.threshold_pct, 3) + "%" : "") << ")"
            << (v.unavailable ? "  [skipped: " + *v.unavailable + "]" : "") << '\n';
      }
    }
  }
  std::size_t groups = 0;
  for (const auto& w : plan.workers) groups += w.groups.size();
  out << plan.row_count() << " case(s) (" << groups << " parameter point(s) x variants) in "
      << plan.workers.size() << " worker(s)\n";
  out << "estimated time: " << describe(estimate) << "\n";
}

}  // namespace tfbench::harness
