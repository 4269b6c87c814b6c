#include "tfbench/harness/report.hpp"

#include "run/protocol.hpp"
#include "tfbench/harness/json.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/text.hpp"
#include "util/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

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

/// The ceilings JSON of a worker row (read as the worker protocol writes it); none where the row has
/// none or it does not parse.
std::optional<workloads::Ceilings> parse_ceilings(const std::string& ceilings_json) {
  if (ceilings_json.empty()) return std::nullopt;
  workloads::Ceilings ceilings;
  try {
    Json::parse(ceilings_json).get_to(ceilings);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return ceilings;
}

/// " (4.61 MiB: 25, 130 MiB: 13.6)": the LLC's bandwidth at its further working sets; empty where
/// it has none (older files, a narrow LLC).
std::string llc_ladder_text(const workloads::Ceilings& ceilings) {
  std::string text;
  for (const workloads::Ceiling& c : ceilings.llc_sizes) {
    if (!c.measured() || !(c.working_set_bytes > 0)) continue;
    text += (text.empty() ? " (" : ", ") + format_number(c.working_set_bytes / 1048576.0, 3) +
            " MiB: " + format_number(c.best, 3);
  }
  return text.empty() ? text : text + ")";
}

/// "; L1 holds 36.2 KiB, L2 holds 1 MiB": where each per-core cache's bandwidth ends at the worker's threads
/// (Ceilings::resident_bytes), which decides the rows' levels; empty for files without the edges.
std::string cache_edges_text(const workloads::Ceilings& ceilings) {
  std::string text;
  for (ops::MemoryLevel l : {ops::MemoryLevel::L1, ops::MemoryLevel::L2}) {
    if (ceilings.cache_edges[static_cast<std::size_t>(l)].empty()) continue;
    const double bytes = ceilings.resident_bytes(l);
    const bool mib = bytes >= 1048576.0;
    text += std::string(text.empty() ? "; " : ", ") + (l == ops::MemoryLevel::L1 ? "L1" : "L2") + " holds " +
            format_number(bytes / (mib ? 1048576.0 : 1024.0), 3) + (mib ? " MiB" : " KiB");
  }
  return text;
}

/// " (fma; dgemm 34.8)": which measurement a peak is, with the other one beside it; empty for files
/// without the FMA peaks.
std::string peak_source_text(const workloads::Ceilings& c, bool f32) {
  const workloads::Ceiling &fma = f32 ? c.fma_f32 : c.fma_f64, &gemm = f32 ? c.gemm_f32 : c.gemm_f64;
  if (!fma.measured()) return "";
  const std::string gemm_name = f32 ? "sgemm" : "dgemm";
  if (c.peak_source(f32) == "fma")
    return " (fma" + (gemm.measured() ? "; " + gemm_name + " " + format_number(gemm.best, 3) : "") + ")";
  return " (" + gemm_name + "; fma " + format_number(fma.best, 3) + ")";
}

/// "peak 64.9 GFLOP/s f64 (fma; dgemm 34.8), 130 f32 (fma; sgemm 53); L1 444, L2 45.2, LLC 22.8
/// (4.6 MiB: 25), DRAM 5.84 GB/s; L1 holds 36.2 KiB, L2 holds 1 MiB (cached ...)".
std::string ceilings_text(const WorkerRow& w) {
  if (!std::isfinite(w.ceiling_gflops) && !std::isfinite(w.ceiling_gbs)) return "ceilings not measured";
  const auto c = parse_ceilings(w.ceilings);
  std::string text = "ceilings: peak " + format_number(w.ceiling_gflops, 3) + " GFLOP/s f64";
  if (c) text += peak_source_text(*c, false);
  if (std::isfinite(w.ceiling_gflops_f32)) {
    text += ", " + format_number(w.ceiling_gflops_f32, 3) + " f32";
    if (c) text += peak_source_text(*c, true);
  }
  if (std::isfinite(w.ceiling_l1_gbs)) {
    text += "; L1 " + format_number(w.ceiling_l1_gbs, 3) + ", L2 " + format_number(w.ceiling_l2_gbs, 3) +
            ", LLC " + format_number(w.ceiling_llc_gbs, 3) + (c ? llc_ladder_text(*c) : "") + ",";
  }
  text += " DRAM " + format_number(w.ceiling_gbs, 3) + " GB/s";
  if (c && c->handoff.measured()) text += "; handoff " + format_number(c->handoff_seconds() * 1e6, 3) + " us";
  if (c) text += cache_edges_text(*c);
  if (!w.ceilings_source.empty()) text += " (" + w.ceilings_source + ")";
  return text;
}

/// "this worker measured l1 bandwidth 15% lower, handoff rate 70% lower than the best kept": the
/// ceilings of a worker that measured them and took the cache's best of each, where its own fell
/// more than 10% short (the rows are taken against the best); empty otherwise.
std::string own_ceilings_text(const WorkerRow& w) {
  if (w.ceilings_measured.empty() || w.ceilings_measured == w.ceilings) return "";
  const auto kept = parse_ceilings(w.ceilings), own = parse_ceilings(w.ceilings_measured);
  if (!kept || !own) return "";
  const std::string lower = workloads::lower_ceilings(*kept, *own, workloads::kKeptCeilingShortfall);
  return lower.empty() ? "" : "this worker measured " + lower + " than the best kept";
}

/// The roofline's verdict for a row: its fraction of the bound, and "!" above 1.05 (a modelling
/// error: a working set or a traffic count that is wrong, or ceilings measured on a busy machine).
std::string roofline_text(const ResultRow& row) {
  if (!std::isfinite(row.roofline_fraction)) return "-";
  return format_percent(row.roofline_fraction) + (row.roofline_fraction > kRooflineTolerance ? " !" : "");
}

/// The ceiling that bounds the row: a peak with the level of its working set, "1 thread" where one
/// thread's ceilings set it, the rate measured beside the row that the bound used (the worker's
/// threads' or one thread's), and the handoff measured beside a bound of several threads ("+ 0.46 us
/// handoff").
std::string bound_text(const ResultRow& row) {
  if (row.roofline_ceiling.empty()) return row.memory_level.empty() ? "-" : row.memory_level;
  const bool peak = row.roofline_ceiling.rfind("peak", 0) == 0;
  const bool one_thread = bound_by_one_thread(row);
  const double beside = one_thread ? (peak ? row.peak_beside_1t_gflops : row.bandwidth_beside_1t_gbs)
                                   : (peak ? row.peak_beside_gflops : row.bandwidth_beside_gbs);
  std::vector<std::string> notes;
  if (one_thread) notes.push_back("1 thread");
  if (peak) notes.push_back(row.memory_level);
  if (std::isfinite(beside))
    notes.push_back(format_number(beside, 3) + (peak ? " GFLOP/s" : " GB/s") + " beside");
  if (row.roofline_threads > 1 && std::isfinite(row.handoff_beside_us))
    notes.push_back("+ " + format_number(row.handoff_beside_us, 2) + " us handoff");
  return notes.empty() ? row.roofline_ceiling : row.roofline_ceiling + " (" + join(notes, ", ") + ")";
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
      << i.blas_threading
      << (i.blas_coretype_forced.empty() ? "" : ", workers' OPENBLAS_CORETYPE=" + i.blas_coretype_forced)
      << (i.transparent_hugepage.empty() ? "" : ", transparent huge pages " + i.transparent_hugepage)
      << (i.openmp_runtime.empty() ? "" : ", OpenMP " + i.openmp_runtime) << "\n";
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
          << (w.omp_proc_bind.empty() ? "" : ", OMP_PROC_BIND=" + w.omp_proc_bind)
          << (w.device.empty() ? "" : ", on " + w.device) << "; exit " << w.exit << "\n"
          << (markdown ? "  " : "      ") << ceilings_text(w) << "\n";
      const std::string own = own_ceilings_text(w);
      if (!own.empty()) out << (markdown ? "  " : "      ") << own << "\n";
    }
    if (rows.empty()) continue;
    impl::TextTable table({"case", "variant", "threads>", "median>", "p5 .. p95>", "cv>", "rate>", "AI>",
                           "bound", "of bound>", "vs fastest peer>", "status"});
    for (const ResultRow* r : rows) {
      std::string status = name(r->status);
      if (!r->error.empty()) status += ": " + r->error;
      const SampleInterval spread = r->status == RowStatus::Ok ? interval_90(r->samples) : SampleInterval{};
      table.add({r->group_id, r->variant, std::to_string(r->threads), format_seconds(r->median_s),
                 interval_text(spread), cv_text(*r, options.noisy_cv), rate_text(*r),
                 format_number(r->arithmetic_intensity, 3), bound_text(*r), roofline_text(*r),
                 speedup_text(*r), status});
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

/// Rows above their roofline bound are flagged: with measured ceilings this is not routine.
void print_roofline_footer(const ResultsFile& file, std::ostream& out, const ReportOptions& options) {
  std::size_t above = 0, bounded = 0;
  for (const auto& run : file.runs) {
    for (const auto& r : run.results) {
      if (!std::isfinite(r.roofline_fraction)) continue;
      ++bounded;
      if (r.roofline_fraction > kRooflineTolerance) ++above;
    }
  }
  if (above == 0) return;
  out << (options.markdown ? "**Warning:** " : "warning: ") << above << " of " << bounded
      << " row(s) run faster than their roofline bound allows (above " << format_percent(kRooflineTolerance)
      << ", marked '!'): the family's working set or byte count is wrong for them, or the ceilings were "
         "measured on a busy machine (see the workers' ceilings; `run --ceilings measure` on a quiet "
         "machine measures them again).\n";
}

}  // namespace

void print_report(const ResultsFile& file, std::ostream& out, const ReportOptions& options) {
  out << (options.markdown ? "# " : "") << file.path << ": " << file.runs.size() << " run(s), schema version "
      << file.schema_version << "\n\n";
  for (const auto& run : file.runs) print_run(run, out, options);
  print_noise_footer(file, out, options);
  print_roofline_footer(file, out, options);
}

}  // namespace tfbench::harness
