#include "tfbench/harness/report.hpp"

#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/text.hpp"
#include "util/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace tfbench::harness {

SampleInterval interval_90(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(samples.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(pos));
    const std::size_t above = std::min(below + 1, samples.size() - 1);
    return samples[below] + (pos - static_cast<double>(below)) * (samples[above] - samples[below]);
  };
  return {at(0.05), at(0.95)};
}

bool is_noisy(const ResultRow& row, double noisy_cv) {
  return row.status == RowStatus::Ok && std::isfinite(row.cv) && row.cv > noisy_cv;
}

namespace {

/// "5.41 .. 5.70 ms": both ends in the unit format_seconds() would give the upper one.
std::string interval_text(const SampleInterval& i) {
  if (!std::isfinite(i.low) || !std::isfinite(i.high)) return "-";
  const double a = std::fabs(i.high);
  const auto [scale, unit] = a < 1e-6   ? std::make_pair(1e9, "ns")
                             : a < 1e-3 ? std::make_pair(1e6, "us")
                             : a < 1.0  ? std::make_pair(1e3, "ms")
                                        : std::make_pair(1.0, "s");
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3g .. %.3g %s", i.low * scale, i.high * scale, unit);
  return buf;
}

std::string cv_text(const ResultRow& row, double noisy_cv) {
  if (!std::isfinite(row.cv)) return "-";
  return format_percent(row.cv) + (is_noisy(row, noisy_cv) ? " noisy" : "");
}

std::string short_revision(const std::string& rev) {
  return rev.size() > 12 ? rev.substr(0, 12) : rev;
}

std::string rate_text(const ResultRow& row) {
  const HeadlineRate r = headline_rate(row);
  return r.unit.empty() ? "-" : format_number(r.value, 3) + " " + r.unit;
}

std::string speedup_text(const ResultRow& row) {
  if (!std::isfinite(row.speedup_vs_fastest_peer)) return "-";
  return format_speedup(row.speedup_vs_fastest_peer) + (row.fastest_peer == row.variant ? " (fastest)" : "");
}

void print_run(const RunData& run, std::ostream& out, const ReportOptions& options) {
  const bool markdown = options.markdown;
  const RunInfo& i = run.info;
  const std::string h = markdown ? "## " : "";
  out << h << "run " << i.run_id << ": " << i.status << ", " << i.start_utc << " .. "
      << (i.end_utc.empty() ? "(no end recorded)" : i.end_utc) << "\n";
  if (markdown) out << "\n";
  out << "  host " << i.hostname << ", " << i.cpu_model << " (" << i.online_cpus << " online CPUs)\n";
  out << "  tfbench " << i.tfbench_version << " (git " << short_revision(i.git_revision)
      << (i.git_dirty == "true" ? ", dirty" : "") << "), " << i.compiler << " " << i.build_type << " "
      << i.build_flags << "\n";
  out << "  Kokkos " << i.kokkos_version << " (" << i.kokkos_spaces << "), " << i.blas_vendor << " "
      << i.blas_threading << "\n";
  out << "  configs " << i.config_paths << " (sha256 " << i.config_sha256.substr(0, 12) << "), seed "
      << i.seed << "\n";
  if (!i.merged_from.empty()) out << "  merged from " << i.merged_from << "\n";
  if (!i.fault_inject.empty()) {
    out << "  FAULT INJECTION: TFBENCH_FAULT_INJECT='" << i.fault_inject
        << "' (crashes, aborts or delays were injected: not a genuine measurement)\n";
  }
  if (!i.isa_mismatch.empty()) {
    out << "  ISA MISMATCH: the build requires extensions this host lacks: " << i.isa_mismatch << "\n";
  }
  out << "  Auto: "
      << (i.tuning_file.empty()
              ? std::string("built-in preference (no tuning file)")
              : "tuning " + i.tuning_file + " (sha256 " + i.tuning_sha256.substr(0, 12) + ")")
      << "\n";
  out << "  command: " << i.command_line << "\n";

  // Rows per worker configuration; several worker processes of one configuration (a restart after
  // a crash) share its table.
  std::map<std::pair<std::int64_t, std::string>, std::vector<const ResultRow*>> by_config;
  for (const auto& r : run.results) by_config[{r.threads, r.exec_space}].push_back(&r);
  for (const auto& w : run.workers)
    by_config.emplace(std::make_pair(w.threads, w.exec_space), std::vector<const ResultRow*>{});
  for (const auto& [key, rows] : by_config) {
    out << "\n" << (markdown ? "### " : "  ") << "threads=" << key.first << " " << key.second << "\n";
    if (markdown) out << "\n";
    for (const auto& w : run.workers) {
      if (w.threads != key.first || w.exec_space != key.second) continue;
      out << (markdown ? "- " : "    ") << "worker " << w.pid << ": kokkos " << w.kokkos_threads << ", blas "
          << w.blas_threads << " (asked " << w.blas_threads_requested << "), " << w.affinity_cpus << " CPU(s)"
          << (w.omp_proc_bind.empty() ? "" : ", OMP_PROC_BIND=" + w.omp_proc_bind) << "; ceilings "
          << format_number(w.ceiling_gflops, 3) << " GFLOP/s, " << format_number(w.ceiling_gbs, 3)
          << " GB/s; exit " << w.exit << "\n";
    }
    if (rows.empty()) continue;
    impl::TextTable table({"case", "variant", "threads>", "median>", "p5 .. p95>", "cv>", "rate>",
                           "of ceiling>", "vs fastest peer>", "status"});
    for (const ResultRow* r : rows) {
      const HeadlineRate rate = headline_rate(*r);
      std::string status = name(r->status);
      if (!r->error.empty()) status += ": " + r->error;
      const SampleInterval spread = r->status == RowStatus::Ok ? interval_90(r->samples) : SampleInterval{};
      table.add({r->group_id, r->variant, std::to_string(r->threads), format_seconds(r->median_s),
                 interval_text(spread), cv_text(*r, options.noisy_cv), rate_text(*r),
                 format_percent(rate.fraction), speedup_text(*r), status});
    }
    if (markdown) {
      out << "\n";
      table.print_markdown(out);
    } else {
      table.print(out, "    ");
    }
  }
  out << "\n";
}

/// Says how many measured rows are noisy and what to do about it, as hyperfine does for outliers.
void print_noise_footer(const ResultsFile& file, std::ostream& out, const ReportOptions& options) {
  std::size_t measured = 0, noisy = 0;
  for (const auto& run : file.runs) {
    for (const auto& r : run.results) {
      if (r.status != RowStatus::Ok) continue;
      ++measured;
      if (is_noisy(r, options.noisy_cv)) ++noisy;
    }
  }
  if (noisy == 0) return;
  out << (options.markdown ? "**Warning:** " : "warning: ") << noisy << " of " << measured
      << " measured row(s) are noisy (cv above " << format_percent(options.noisy_cv)
      << ", marked 'noisy'): their medians may move between runs by more than a real change. Rerun them "
         "on a quiet machine (no other load, a fixed CPU frequency), or with more repetitions or a larger "
         "min_time.\n";
}

}  // namespace

void print_report(const ResultsFile& file, std::ostream& out, const ReportOptions& options) {
  out << (options.markdown ? "# " : "") << file.path << ": " << file.runs.size() << " run(s), schema version "
      << file.schema_version << "\n\n";
  for (const auto& run : file.runs) print_run(run, out, options);
  print_noise_footer(file, out, options);
}

}  // namespace tfbench::harness
