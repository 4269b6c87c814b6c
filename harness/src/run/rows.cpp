#include "tfbench/harness/rows.hpp"

#include "tfbench/harness/stats.hpp"
#include "tfbench/harness/text.hpp"

#include <cmath>
#include <map>

namespace tfbench::harness {

namespace {
double rate(double work, double seconds, double scale) {
  if (!(work > 0.0) || !(seconds > 0.0)) return kNaN;
  return work / seconds / scale;
}
double fraction(double value, double ceiling) {
  if (!std::isfinite(value) || !(ceiling > 0.0)) return kNaN;
  return value / ceiling;
}
}  // namespace

void derive_case_fields(std::vector<ResultRow>& rows, double ceiling_gflops, double ceiling_gbs) {
  for (auto& row : rows) {
    row.repetitions = static_cast<std::int64_t>(row.samples.size());
    if (row.status != RowStatus::Ok || row.samples.empty()) continue;
    const SampleStats s = summarize(row.samples);
    row.median_s = s.median;
    row.min_s = s.min;
    row.max_s = s.max;
    row.mean_s = s.mean;
    row.stddev_s = s.stddev;
    row.cv = s.cv;
    row.gflops = rate(row.flops, row.median_s, 1e9);
    row.gbs = rate(row.bytes, row.median_s, 1e9);
    row.frac_compute_ceiling = fraction(row.gflops, ceiling_gflops);
    row.frac_bandwidth_ceiling = fraction(row.gbs, ceiling_gbs);
  }
  // Fastest ok peer per case (group) in these rows.
  std::map<std::string, const ResultRow*> fastest;
  for (const auto& row : rows) {
    if (row.variant_kind != "peer" || row.status != RowStatus::Ok || !std::isfinite(row.median_s)) continue;
    auto& best = fastest[row.group_id];
    if (!best || row.median_s < best->median_s) best = &row;
  }
  std::map<std::string, std::pair<std::string, double>> peer;  // copied: rows are written below
  for (const auto& [group, row] : fastest) peer[group] = {row->variant, row->median_s};
  for (auto& row : rows) {
    const auto it = peer.find(row.group_id);
    if (it == peer.end()) continue;
    row.fastest_peer = it->second.first;
    if (row.status == RowStatus::Ok && row.median_s > 0.0)
      row.speedup_vs_fastest_peer = it->second.second / row.median_s;
  }
}

HeadlineRate headline_rate(const ResultRow& row) {
  HeadlineRate r;
  const bool has_flops = std::isfinite(row.gflops), has_bytes = std::isfinite(row.gbs);
  bool bytes = has_bytes && !has_flops;
  if (has_flops && has_bytes) {
    const double fc = row.frac_compute_ceiling, fb = row.frac_bandwidth_ceiling;
    if (std::isfinite(fc) && std::isfinite(fb)) {
      bytes = fb >= fc;
    } else {
      // No ceilings: below one flop per byte no CPU here is compute-bound.
      bytes = row.flops / row.bytes < 1.0;
    }
  }
  if (bytes) {
    r.value = row.gbs;
    r.unit = "GB/s";
    r.fraction = row.frac_bandwidth_ceiling;
  } else if (has_flops) {
    r.value = row.gflops;
    r.unit = "GFLOP/s";
    r.fraction = row.frac_compute_ceiling;
  }
  return r;
}

std::string format_rate(const HeadlineRate& rate) {
  if (rate.unit.empty()) return "-";
  std::string out = format_number(rate.value, 3) + " " + rate.unit;
  if (std::isfinite(rate.fraction)) out += " (" + format_percent(rate.fraction) + " of ceiling)";
  return out;
}

}  // namespace tfbench::harness
