#include "tfbench/harness/compare.hpp"

#include "tfbench/harness/json.hpp"
#include "tfbench/harness/stats.hpp"
#include "tfbench/harness/text.hpp"
#include "util/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <tuple>

namespace tfbench::harness {

const char* name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Regression:
      return "REGRESSION";
    case Verdict::Improvement:
      return "IMPROVEMENT";
    case Verdict::NoChange:
      return "NO_CHANGE";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
  }
  return "UNKNOWN";
}

std::size_t samples_needed(double alpha) {
  for (std::size_t k = 1; k <= 1000; ++k) {
    if (mann_whitney_min_p(k, k) < alpha) return k;
  }
  return 1000;
}

namespace {

std::string percent(double change) {
  if (!std::isfinite(change)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", change);
  return buf;
}

std::string p_text(double p) {
  if (!std::isfinite(p)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), p < 0.001 ? "%.1e" : "%.3f", p);
  return buf;
}

}  // namespace

namespace {

// The verdict rules shared by both tests: a change counts beyond the threshold; it is a verdict
// only when also p < alpha. `best_p` is the smallest p the test could give with this much data;
// `too_few` + `advice` say so, and what to add, when even that is not below alpha.
void decide(Judgement& j, double threshold_pct, double alpha, double best_p, const std::string& too_few,
            const std::string& advice) {
  const double factor = 1.0 + threshold_pct / 100.0;
  const bool slower = j.ratio >= factor;
  const bool faster = j.ratio <= 1.0 / factor;
  const std::string limit = "threshold " + format_number(threshold_pct, 3) + "%";
  if (!std::isfinite(j.ratio)) {
    j.verdict = Verdict::Inconclusive;
    j.reason = "too noisy: the medians give no finite ratio";
  } else if (!slower && !faster) {
    j.verdict = Verdict::NoChange;
    j.reason = "within " + limit + (j.p < alpha ? " (a significant but smaller shift)" : "");
    if (best_p >= alpha) {
      // No outcome could have been significant: the ratio alone (one sample a side, say) says little.
      j.undecidable = true;
      j.reason += ", but " + too_few + " no change could have been shown (the smallest possible p is " +
                  p_text(best_p) + " >= alpha " + format_number(alpha, 3) + "); " + advice;
    }
  } else if (j.p < alpha) {
    j.verdict = slower ? Verdict::Regression : Verdict::Improvement;
    j.reason = std::string(slower ? "slower" : "faster") + " beyond " + limit + ", p " + p_text(j.p) +
               " < alpha " + format_number(alpha, 3);
  } else {
    j.verdict = Verdict::Inconclusive;
    if (best_p >= alpha) {
      j.reason = too_few + " the smallest possible p is " + p_text(best_p) + " >= alpha " +
                 format_number(alpha, 3) + "; " + advice;
    } else {
      j.reason = "too noisy: " + percent(j.change_pct) + " but p " + p_text(j.p) + " >= alpha " +
                 format_number(alpha, 3);
    }
  }
}

}  // namespace

Judgement judge(const std::vector<double>& base, const std::vector<double>& fresh, double threshold_pct,
                double alpha) {
  Judgement j;
  j.alpha = alpha;
  if (base.empty() || fresh.empty()) {
    j.verdict = Verdict::Inconclusive;
    j.reason = "too few samples: a side has none";
    return j;
  }
  j.ratio = summarize(fresh).median / summarize(base).median;
  j.change_pct = (j.ratio - 1.0) * 100.0;
  const MannWhitneyResult test = mann_whitney_u(fresh, base);
  j.p = test.p;
  j.u = test.u;
  j.exact = test.exact;
  decide(j, threshold_pct, alpha, mann_whitney_min_p(base.size(), fresh.size()),
         "too few samples: with " + std::to_string(base.size()) + " and " + std::to_string(fresh.size()) +
             " samples",
         "use --repetitions " + std::to_string(samples_needed(alpha)) + " or more");
  return j;
}

std::size_t rounds_needed(double alpha) {
  for (std::size_t n = 1; n <= 64; ++n) {
    if (sign_test_min_p(n) < alpha) return n;
  }
  return 64;
}

Judgement judge_paired(const std::vector<double>& base_rounds, const std::vector<double>& new_rounds,
                       double threshold_pct, double alpha) {
  Judgement j;
  j.alpha = alpha;
  j.test = "sign";
  j.exact = true;
  std::size_t above = 0, below = 0;
  for (std::size_t i = 0; i < std::min(base_rounds.size(), new_rounds.size()); ++i) {
    const double r = new_rounds[i] / base_rounds[i];
    if (!std::isfinite(r) || r <= 0.0) continue;  // a round without both medians pairs nothing
    j.round_ratios.push_back(r);
    above += r > 1.0;
    below += r < 1.0;
  }
  const std::size_t n = j.round_ratios.size();
  if (n == 0) {
    j.verdict = Verdict::Inconclusive;
    j.reason = "too few rounds: no round has a median on both sides";
    return j;
  }
  j.ratio = summarize(j.round_ratios).median;
  j.change_pct = (j.ratio - 1.0) * 100.0;
  j.p = sign_test_p(above, below);
  decide(j, threshold_pct, alpha, sign_test_min_p(n),
         "too few rounds: with " + std::to_string(n) + " paired rounds",
         "use " + std::to_string(rounds_needed(alpha)) + " or more rounds");
  // Every verdict that is not NO_CHANGE shows its rounds: how they agreed is the evidence.
  if (j.verdict != Verdict::NoChange) {
    std::string rounds;
    for (double r : j.round_ratios) rounds += (rounds.empty() ? "" : " ") + format_number(r, 3);
    j.reason += "; " + std::to_string(above) + " of " + std::to_string(n) +
                " rounds slower, new/base by round " + rounds;
  }
  return j;
}

std::vector<double> holm_levels(const std::vector<double>& p_values, double alpha) {
  std::vector<double> levels(p_values.size(), alpha);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p_values.size(); ++i) {
    if (std::isfinite(p_values[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  const std::size_t m = order.size();
  bool stopped = false;
  double level = alpha;
  for (std::size_t rank = 0; rank < m; ++rank) {
    if (!stopped) {
      level = alpha / static_cast<double>(m - rank);
      stopped = !(p_values[order[rank]] < level);
    }
    levels[order[rank]] = level;
  }
  return levels;
}

std::size_t CompareReport::count(Verdict verdict) const {
  std::size_t n = 0;
  for (const auto& r : rows) n += r.judgement.verdict == verdict;
  return n;
}

std::size_t CompareReport::missing() const {
  std::size_t n = 0;
  for (const auto& r : not_compared) n += r.missing;
  return n;
}

namespace {

using Key = std::tuple<std::string, std::int64_t, std::string>;  // case_id, threads, exec_space

struct Indexed {
  std::map<Key, ResultRow> rows;                     // one row per key, pooled over the runs of the file
  std::map<Key, std::vector<double>> round_medians;  // per key, per run: its median (NaN: not ok)
  std::vector<std::string> runs;
  std::size_t pooled = 0;  // rows whose key also appeared in an earlier run
};

// A key repeated in several runs (merged rounds of the perf gate, repeated array tasks) is one
// case measured in several processes: its samples are pooled, so that the test sees the
// process-to-process spread instead of one process. A failure in any run makes the case failed.
Indexed index_rows(const ResultsFile& file) {
  Indexed out;
  for (std::size_t index = 0; index < file.runs.size(); ++index) {  // ordered by start time
    const RunData& run = file.runs[index];
    out.runs.push_back(run.info.run_id);
    for (const auto& row : run.results) {
      const Key key{row.case_id, row.threads, row.exec_space};
      auto& medians = out.round_medians[key];
      medians.resize(file.runs.size(), kNaN);
      if (row.status == RowStatus::Ok) medians[index] = row.median_s;
      auto [it, inserted] = out.rows.try_emplace(key, row);
      if (inserted) continue;
      ++out.pooled;
      ResultRow& acc = it->second;
      if (acc.status == RowStatus::Ok && row.status == RowStatus::Ok) {
        acc.samples.insert(acc.samples.end(), row.samples.begin(), row.samples.end());
        acc.median_s = summarize(acc.samples).median;
        acc.repetitions = static_cast<std::int64_t>(acc.samples.size());
      } else if (is_failure(row.status) ? !is_failure(acc.status)
                                        : (acc.status != RowStatus::Ok && !is_failure(acc.status))) {
        acc = row;  // a failure replaces success; ok replaces skipped or interrupted
      }
    }
  }
  return out;
}

}  // namespace

CompareReport compare_results(const ResultsFile& base, const ResultsFile& fresh,
                              const CompareSettings& settings) {
  CompareReport report;
  report.base_path = base.path;
  report.new_path = fresh.path;
  report.settings = settings;
  const Indexed a = index_rows(base);
  const Indexed b = index_rows(fresh);
  report.base_runs = a.runs;
  report.new_runs = b.runs;
  if (settings.paired_rounds && a.runs.size() != b.runs.size()) {
    throw CompareError("--paired-rounds pairs the i-th run of one file with the i-th of the other, but " +
                       base.path + " has " + std::to_string(a.runs.size()) + " run(s) and " + fresh.path +
                       " has " + std::to_string(b.runs.size()));
  }
  if (a.rows.empty()) throw CompareError(base.path + " has no result rows to compare");
  if (b.rows.empty()) throw CompareError(fresh.path + " has no result rows to compare");
  if (a.pooled) {
    report.notes.push_back(base.path + ": " + std::to_string(a.pooled) +
                           " row(s) repeated in several runs; their samples are pooled");
  }
  if (b.pooled) {
    report.notes.push_back(fresh.path + ": " + std::to_string(b.pooled) +
                           " row(s) repeated in several runs; their samples are pooled");
  }

  std::size_t matched = 0;
  // Rows judged on samples, and how to judge each again at another level (Holm's step-down).
  std::vector<std::pair<std::size_t, std::function<Judgement(double)>>> tested;
  for (const auto& [key, base_pooled] : a.rows) {
    const ResultRow* base_row = &base_pooled;
    const auto it = b.rows.find(key);
    if (it == b.rows.end()) {
      report.not_compared.push_back(
          {std::get<0>(key), std::get<2>(key), std::get<1>(key), "only in base", true});
      continue;
    }
    ++matched;
    const ResultRow& new_row = it->second;
    CaseComparison c;
    c.case_id = std::get<0>(key);
    c.threads = std::get<1>(key);
    c.exec_space = std::get<2>(key);
    c.family = new_row.family;
    c.variant = new_row.variant;
    c.base_status = base_row->status;
    c.new_status = new_row.status;
    c.base_median = base_row->median_s;
    c.new_median = new_row.median_s;
    c.base_samples = base_row->samples.size();
    c.new_samples = new_row.samples.size();
    if (std::isfinite(new_row.threshold_pct)) {
      c.threshold_pct = new_row.threshold_pct;
      c.threshold_from_config = true;
    } else if (std::isfinite(base_row->threshold_pct)) {
      c.threshold_pct = base_row->threshold_pct;
      c.threshold_from_config = true;
    } else {
      c.threshold_pct = settings.threshold_pct;
    }
    if (base_row->status == RowStatus::Ok && new_row.status == RowStatus::Ok) {
      // Everything it refers to (the indexed files, the settings) outlives compare_results' loop.
      std::function<Judgement(double)> judge_at = [&settings, &a, &b, k = key, base_row, new_row = &new_row,
                                                   threshold = c.threshold_pct](double alpha) {
        return settings.paired_rounds
                   ? judge_paired(a.round_medians.at(k), b.round_medians.at(k), threshold, alpha)
                   : judge(base_row->samples, new_row->samples, threshold, alpha);
      };
      c.judgement = judge_at(settings.alpha);
      tested.emplace_back(report.rows.size(), std::move(judge_at));
      report.rows.push_back(std::move(c));
    } else if (base_row->status == RowStatus::Ok && is_failure(new_row.status)) {
      // A case that worked and now fails is the worst regression a gate can miss.
      c.judgement.verdict = Verdict::Regression;
      c.judgement.reason = std::string("status ") + name(new_row.status) + " (base ok)" +
                           (new_row.error.empty() ? std::string() : ": " + new_row.error);
      report.rows.push_back(std::move(c));
    } else {
      report.not_compared.push_back(
          {c.case_id, c.exec_space, c.threads,
           std::string("status base ") + name(base_row->status) + ", new " + name(new_row.status)});
    }
  }
  for (const auto& [key, row] : b.rows) {
    if (!a.rows.count(key)) {
      report.not_compared.push_back(
          {std::get<0>(key), std::get<2>(key), std::get<1>(key), "only in new", true});
    }
  }
  if (matched == 0) {
    throw CompareError("no case in common between " + base.path + " and " + fresh.path +
                       " (rows match on case_id, threads and exec_space)");
  }
  if (settings.family_wise && !tested.empty()) {
    std::vector<double> p_values;
    for (const auto& t : tested) p_values.push_back(report.rows[t.first].judgement.p);
    const std::vector<double> levels = holm_levels(p_values, settings.alpha);
    for (std::size_t i = 0; i < tested.size(); ++i) {
      Judgement& j = report.rows[tested[i].first].judgement;
      j = tested[i].second(levels[i]);
      if (j.verdict != Verdict::NoChange || j.undecidable) {
        j.reason += " (Holm: alpha " + format_number(settings.alpha, 3) + " over " +
                    std::to_string(tested.size()) + (tested.size() == 1 ? " row)" : " rows)");
      }
    }
  }
  double log_sum = 0.0;
  std::size_t log_count = 0;
  for (const auto& t : tested) {
    const double ratio = report.rows[t.first].judgement.ratio;
    if (std::isfinite(ratio) && ratio > 0) {
      log_sum += std::log(ratio);
      ++log_count;
    }
  }
  if (log_count) report.geomean_ratio = std::exp(log_sum / static_cast<double>(log_count));
  std::size_t undecidable = 0;
  for (const auto& c : report.rows) undecidable += c.judgement.undecidable;
  if (undecidable) {
    report.notes.push_back(
        std::to_string(undecidable) + " NO_CHANGE row(s) had too few " +
        (settings.paired_rounds ? "rounds" : "samples") +
        " for any change to be significant: they are undecided, not evidence of no change");
  }
  return report;
}

namespace {

std::vector<std::string> row_cells(const CaseComparison& c) {
  const std::string threshold =
      format_number(c.threshold_pct, 3) + "%" + (c.threshold_from_config ? " (config)" : "");
  return {c.case_id,
          std::to_string(c.threads),
          c.exec_space,
          format_seconds(c.base_median),
          format_seconds(c.new_median),
          format_number(c.judgement.ratio, 3),
          percent(c.judgement.change_pct),
          p_text(c.judgement.p),
          threshold,
          name(c.judgement.verdict),
          c.judgement.reason};
}

const std::vector<std::string> kHeaders = {"case",    "threads>", "space",      "base>",   "new>", "ratio>",
                                           "change>", "p>",       "threshold>", "verdict", "why"};

std::string summary_line(const CompareReport& r) {
  std::string s = std::to_string(r.rows.size()) +
                  " compared: " + std::to_string(r.count(Verdict::Regression)) + " REGRESSION, " +
                  std::to_string(r.count(Verdict::Improvement)) + " IMPROVEMENT, " +
                  std::to_string(r.count(Verdict::NoChange)) + " NO_CHANGE, " +
                  std::to_string(r.count(Verdict::Inconclusive)) + " INCONCLUSIVE";
  if (std::isfinite(r.geomean_ratio)) {
    s += "; geometric mean of new/base " + format_number(r.geomean_ratio, 4) + " (" +
         percent((r.geomean_ratio - 1.0) * 100.0) + ")";
  }
  if (!r.not_compared.empty()) s += "; " + std::to_string(r.not_compared.size()) + " not compared";
  return s;
}

std::string settings_line(const CompareReport& r) {
  const std::string threshold =
      "threshold " + format_number(r.settings.threshold_pct, 3) + "% unless the config sets threshold_pct; ";
  const std::string alpha =
      "alpha " + format_number(r.settings.alpha, 3) +
      (r.settings.family_wise ? " family-wise (Holm's step-down over the rows compared)" : "");
  if (r.settings.paired_rounds) {
    return threshold + "paired rounds: ratio = median over the rounds of new/base of the round medians " +
           "(> 1: slower), two-sided sign test over the rounds, " + alpha;
  }
  return threshold + "two-sided Mann-Whitney U, " + alpha +
         "; ratio = median new / median base (> 1: slower)";
}

// Members in the order they were set (ordered_json), so that the document reads top-down.
void print_json(const CompareReport& r, std::ostream& out) {
  using Doc = nlohmann::ordered_json;
  Doc doc;
  doc["base"] = {{"path", r.base_path}, {"runs", r.base_runs}};
  doc["new"] = {{"path", r.new_path}, {"runs", r.new_runs}};
  doc["threshold_pct"] = r.settings.threshold_pct;
  doc["alpha"] = r.settings.alpha;
  doc["paired_rounds"] = r.settings.paired_rounds;
  doc["family_wise"] = r.settings.family_wise;
  doc["rows"] = Doc::array();
  for (const auto& c : r.rows) {
    Doc row;
    row["case_id"] = c.case_id;
    row["threads"] = c.threads;
    row["exec_space"] = c.exec_space;
    row["family"] = c.family;
    row["variant"] = c.variant;
    row["base_status"] = name(c.base_status);
    row["new_status"] = name(c.new_status);
    row["base_median_s"] = c.base_median;
    row["new_median_s"] = c.new_median;
    row["base_samples"] = c.base_samples;
    row["new_samples"] = c.new_samples;
    row["ratio"] = c.judgement.ratio;
    row["change_pct"] = c.judgement.change_pct;
    row["p"] = c.judgement.p;
    row["alpha"] = c.judgement.alpha;
    row["u"] = c.judgement.u;
    row["exact"] = c.judgement.exact;
    row["test"] = c.judgement.test;
    row["round_ratios"] = c.judgement.round_ratios;
    row["threshold_pct"] = c.threshold_pct;
    row["threshold_from_config"] = c.threshold_from_config;
    row["verdict"] = name(c.judgement.verdict);
    row["reason"] = c.judgement.reason;
    doc["rows"].push_back(std::move(row));
  }
  doc["not_compared"] = Doc::array();
  for (const auto& n : r.not_compared) {
    doc["not_compared"].push_back(
        {{"case_id", n.case_id}, {"threads", n.threads}, {"exec_space", n.exec_space}, {"reason", n.reason}});
  }
  Doc summary;
  for (Verdict v : {Verdict::Regression, Verdict::Improvement, Verdict::NoChange, Verdict::Inconclusive}) {
    summary[name(v)] = r.count(v);
  }
  summary["compared"] = r.rows.size();
  summary["geomean_ratio"] = r.geomean_ratio;
  doc["summary"] = std::move(summary);
  doc["notes"] = r.notes;
  out << dump_json(doc) << '\n';  // NaN (no ratio, no p) as null
}

}  // namespace

void print_compare(const CompareReport& r, CompareFormat format, std::ostream& out) {
  if (format == CompareFormat::Json) {
    print_json(r, out);
    return;
  }
  impl::TextTable table(kHeaders);
  for (const auto& c : r.rows) table.add(row_cells(c));
  impl::TextTable others({"case", "threads>", "space", "not compared because"});
  for (const auto& n : r.not_compared)
    others.add({n.case_id, std::to_string(n.threads), n.exec_space, n.reason});
  if (format == CompareFormat::Markdown) {
    out << "### tfbench compare\n\n";
    out << "base `" << r.base_path << "` (" << join(r.base_runs) << "), new `" << r.new_path << "` ("
        << join(r.new_runs) << ")\n\n"
        << settings_line(r) << "\n\n";
    table.print_markdown(out);
    out << "\n**" << summary_line(r) << "**\n";
    if (!others.empty()) {
      out << "\n";
      others.print_markdown(out);
    }
    for (const auto& note : r.notes) out << "\nnote: " << note << "\n";
    return;
  }
  out << "base: " << r.base_path << " (" << join(r.base_runs) << ")\n";
  out << "new:  " << r.new_path << " (" << join(r.new_runs) << ")\n";
  out << settings_line(r) << "\n\n";
  table.print(out);
  if (!others.empty()) {
    out << '\n';
    others.print(out);
  }
  for (const auto& note : r.notes) out << "note: " << note << '\n';
  out << '\n' << summary_line(r) << '\n';
}

}  // namespace tfbench::harness
