#include "tfbench/harness/rows.hpp"

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/harness/stats.hpp"
#include "tfbench/harness/text.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

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

double positive_or_zero(double v) {
  return v > 0 ? v : 0.0;
}

/// The ceilings are the host's: a row of a device space has no roofline here.
bool on_host(const ResultRow& row) {
  const auto space = parse_exec_space(row.exec_space);
  return !space || is_host_space(*space);
}

/// Each round's bound with the ceilings measured beside the row in that round (ResultRow::beside_rounds),
/// where every ceiling measured beside it has a value per sample; none otherwise.
std::optional<std::vector<double>> paired_bounds(const ResultRow& row, const workloads::Ceilings& c,
                                                 double flops, double bytes, double footprint,
                                                 workloads::FlopPrecision precision,
                                                 const workloads::Ceilings* one_thread) {
  const BesideRounds& r = row.beside_rounds;
  const std::vector<double>* all[] = {&r.bandwidth_gbs, &r.peak_gflops, &r.handoff_us, &r.bandwidth_1t_gbs,
                                      &r.peak_1t_gflops};
  const std::size_t n = row.samples.size();
  bool any = false;
  for (const auto* v : all) {
    if (v->empty()) continue;
    if (v->size() != n) return std::nullopt;
    any = true;
  }
  if (!any) return std::nullopt;
  // A round without a measurement takes the best round's, as the row's bound does: no round's bound
  // is then tighter than the row's.
  const auto at = [](const std::vector<double>& v, std::size_t i, double best) {
    return !v.empty() && std::isfinite(v[i]) ? v[i] : best;
  };
  std::vector<double> bounds(n, kNaN);
  for (std::size_t i = 0; i < n; ++i) {
    const auto bound = workloads::roofline_bound(
        c, flops, bytes, positive_or_zero(row.write_allocate_bytes), footprint, precision,
        {at(r.bandwidth_gbs, i, row.bandwidth_beside_gbs), at(r.peak_gflops, i, row.peak_beside_gflops),
         at(r.handoff_us, i, row.handoff_beside_us) * 1e-6,
         at(r.bandwidth_1t_gbs, i, row.bandwidth_beside_1t_gbs),
         at(r.peak_1t_gflops, i, row.peak_beside_1t_gflops)},
        one_thread);
    if (bound) bounds[i] = bound->seconds;
  }
  return bounds;
}

void derive_roofline(ResultRow& row, const workloads::Ceilings& c, const workloads::Ceilings* one_thread) {
  const double flops = positive_or_zero(row.flops), bytes = positive_or_zero(row.bytes);
  const double footprint = row.working_set_bytes > 0 ? row.working_set_bytes : bytes;
  if (footprint > 0) row.memory_level = ops::name(c.level_of(footprint));
  const auto precision =
      row.precision == "f32" ? workloads::FlopPrecision::F32 : workloads::FlopPrecision::F64;
  const workloads::Ceiling& peak = precision == workloads::FlopPrecision::F32 ? c.peak_f32 : c.peak_f64;
  row.frac_compute_ceiling = fraction(row.gflops, peak.best);
  const auto bound = workloads::roofline_bound(
      c, flops, bytes, positive_or_zero(row.write_allocate_bytes), footprint, precision,
      {row.bandwidth_beside_gbs, row.peak_beside_gflops, row.handoff_beside_us * 1e-6,
       row.bandwidth_beside_1t_gbs, row.peak_beside_1t_gflops},
      one_thread);
  if (!bound) return;
  row.roofline_threads = bound->threads;
  // Against the level, the bytes it moves: from DRAM the write-allocate reads too.
  if (flops > 0 && bound->traffic_bytes > 0) row.arithmetic_intensity = flops / bound->traffic_bytes;
  row.frac_bandwidth_ceiling =
      fraction(rate(bound->traffic_bytes, row.median_s, 1e9), c.bandwidth_at(bound->level, footprint).best);
  row.roofline_ceiling = bound->ceiling;
  row.roofline_bound_s = bound->seconds;
  // Round by round where the ceilings were measured in every round: a row and its bound then see the
  // host of the same minutes, where its best rounds' ceilings and its median sample may not (on the
  // EPYC VM two threads' DRAM bandwidth read 57-62 GB/s in some rounds of a case and 104-121 in others).
  if (const auto paired = paired_bounds(row, c, flops, bytes, footprint, precision, one_thread)) {
    std::vector<double> fractions;
    for (std::size_t i = 0; i < row.samples.size(); ++i)
      if (row.samples[i] > 0 && (*paired)[i] > 0) fractions.push_back((*paired)[i] / row.samples[i]);
    const MedianInterval m = median_interval(std::move(fractions));
    row.roofline_fraction = m.median;
    row.roofline_fraction_lo = m.lo;
    row.roofline_fraction_hi = m.hi;
    return;
  }
  if (!(row.median_s > 0)) return;
  row.roofline_fraction = bound->seconds / row.median_s;
  const MedianInterval m = median_interval(row.samples);
  if (m.lo > 0) {  // the samples' interval, through the one bound
    row.roofline_fraction_lo = bound->seconds / m.hi;
    row.roofline_fraction_hi = bound->seconds / m.lo;
  }
}
}  // namespace

void derive_case_fields(std::vector<ResultRow>& rows, const workloads::Ceilings* ceilings,
                        const workloads::Ceilings* one_thread) {
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
    if (row.flops > 0 && row.bytes > 0) row.arithmetic_intensity = row.flops / row.bytes;
    if (ceilings && on_host(row)) derive_roofline(row, *ceilings, one_thread);
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

namespace {
/// "f64 peak", "L2 bandwidth": a roofline_ceiling for people.
std::string ceiling_words(const std::string& ceiling) {
  if (ceiling.rfind("peak_", 0) == 0) return ceiling.substr(5) + " peak";
  if (ceiling.rfind("bw_", 0) == 0) {
    std::string level = ceiling.substr(3);
    for (char& ch : level) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return level + " bandwidth";
  }
  return ceiling;
}
}  // namespace

HeadlineRate headline_rate(const ResultRow& row) {
  HeadlineRate r;
  const bool has_flops = std::isfinite(row.gflops), has_bytes = std::isfinite(row.gbs);
  bool bytes = has_bytes && !has_flops;
  if (has_flops && has_bytes) {
    if (!row.roofline_ceiling.empty()) {
      bytes = row.roofline_ceiling.rfind("bw_", 0) == 0;  // the roofline says which resource binds
    } else {
      // No ceilings: below one flop per byte no CPU here is compute-bound.
      bytes = row.flops / row.bytes < 1.0;
    }
  }
  if (bytes) {
    r.value = row.gbs;
    r.unit = "GB/s";
  } else if (has_flops) {
    r.value = row.gflops;
    r.unit = "GFLOP/s";
  }
  if (!r.unit.empty() && std::isfinite(row.roofline_fraction)) {
    r.fraction = row.roofline_fraction;
    r.ceiling = ceiling_words(row.roofline_ceiling);
    const bool bandwidth = row.roofline_ceiling.rfind("bw_", 0) == 0;
    if (bound_by_one_thread(row)) {
      r.ceiling += " of one thread";
    } else if (std::isfinite(bandwidth ? row.bandwidth_beside_gbs : row.peak_beside_gflops)) {
      r.ceiling += " beside it";
    }
  }
  return r;
}

std::string format_rate(const HeadlineRate& rate) {
  if (rate.unit.empty()) return "-";
  std::string out = format_number(rate.value, 3) + " " + rate.unit;
  if (std::isfinite(rate.fraction))
    out += " (" + format_percent(rate.fraction) + " of the " + rate.ceiling + ")";
  return out;
}

}  // namespace tfbench::harness
