// Developer probe (not a test): times every variant of one case side by side, interleaved, and
// prints medians; for tuning peers before the harness runs them. Usage:
//   tfbench_workloads_probe <family> [key=value ...] [--threads N] [--space serial|openmp] [--reps R]
//                           [--only VARIANT[,VARIANT...]]   (e.g. one for perf)
//   tfbench_workloads_probe --ceilings [--threads N]           (the machine ceilings, as a run measures)
//   tfbench_workloads_probe --bandwidth KIB[,KIB...] [--threads N]   (both bandwidth kernels per size)
// With more than one variant timed, "ratio" is the median over repetitions of the first variant's
// time over the row's (>1: the row is faster): a side-by-side comparison that host drift between
// repetitions does not move.

#include <Kokkos_Core.hpp>

#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "ceilings/level_bandwidth.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;

namespace {

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t b = 0, e; b <= list.size(); b = e + 1) {
    e = std::min(list.find(',', b), list.size());
    out.push_back(list.substr(b, e - b));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr
        << "usage: tfbench_workloads_probe <family> [key=value ...] [--threads N] [--space S] [--reps R]\n"
           "                              [--only VARIANT[,VARIANT...]]\n";
    return 2;
  }
  int threads = 1, reps = 31;
  std::string space = "openmp";
  std::vector<std::string> only;
  std::vector<double> bandwidth_kib;
  Params params;
  // The family (or --ceilings) is argv[1]; --bandwidth takes its list from there.
  for (int i = std::string(argv[1]) == "--bandwidth" ? 1 : 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads")
      threads = std::atoi(argv[++i]);
    else if (a == "--space")
      space = argv[++i];
    else if (a == "--reps")
      reps = std::atoi(argv[++i]);
    else if (a == "--bandwidth") {
      for (const std::string& kib : split_commas(argv[++i])) bandwidth_kib.push_back(std::atof(kib.c_str()));
    } else if (a == "--only") {
      only = split_commas(argv[++i]);
    } else {
      const auto eq = a.find('=');
      const std::string k = a.substr(0, eq), v = a.substr(eq + 1);
      char* end = nullptr;
      const long long iv = std::strtoll(v.c_str(), &end, 10);
      if (*end == 0) {
        params.set(k, static_cast<std::int64_t>(iv));
        continue;
      }
      const double dv = std::strtod(v.c_str(), &end);
      if (*end == 0) {
        params.set(k, dv);
        continue;
      }
      params.set(k, v);
    }
  }
  tfbench::KokkosStartOptions options;
  options.num_threads = threads;
  const tfbench::KokkosRuntime kokkos(options);
  RunContext ctx;
  ctx.space = *tfbench::parse_exec_space(space);
  ctx.threads = threads;
  if (std::string(argv[1]) == "--ceilings") {
    const auto t0 = std::chrono::steady_clock::now();
    const Ceilings c = measure_ceilings(ctx);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ceilings at %d thread(s) in %.3f s:\n", threads, s);
    const auto show = [](const char* what, const tfbench::workloads::Ceiling& ceiling, const char* unit) {
      std::printf("  %-14s best %8.2f  median %8.2f  worst %8.2f %s  (working set %.0f B)\n", what,
                  ceiling.best, ceiling.median, ceiling.worst, unit, ceiling.working_set_bytes);
    };
    show("f64 peak", c.peak_f64, "GFLOP/s");
    show("f32 peak", c.peak_f32, "GFLOP/s");
    if (c.handoff.measured())
      std::printf("  %-14s best %8.3f  median %8.3f  worst %8.3f us a round trip\n", "handoff",
                  1e6 / c.handoff.best, 1e6 / c.handoff.median, 1e6 / c.handoff.worst);
    for (int l = 0; l < tfbench::workloads::kMemoryLevels; ++l) {
      const auto level = static_cast<tfbench::ops::MemoryLevel>(l);
      show(tfbench::ops::name(level), c.level(level), "GB/s");
    }
    for (const auto& size : c.llc_sizes) show("llc (ladder)", size, "GB/s");
    for (auto level : {tfbench::ops::MemoryLevel::L1, tfbench::ops::MemoryLevel::L2}) {
      const std::string name = std::string(tfbench::ops::name(level)) + " (edge)";
      for (const auto& edge : c.cache_edges[static_cast<std::size_t>(level)])
        show(name.c_str(), edge, "GB/s");
      std::printf("  %s holds %.0f B\n", tfbench::ops::name(level), c.resident_bytes(level));
    }
    return 0;
  }
  if (std::string(argv[1]) == "--bandwidth") {
    namespace impl = tfbench::workloads::impl;
    std::printf("%10s %10s %10s %10s %10s   (GB/s at %d thread(s), %d samples of %.0f ms)\n", "KiB", "triad",
                "median", "in-place", "median", threads, impl::kCeilingSamples,
                impl::kCacheSampleSeconds * 1e3);
    for (double kib : bandwidth_kib) {
      auto sample = [&](impl::BandwidthKernel k) {
        auto v =
            impl::sample_bandwidth(k, kib * 1024, threads, impl::kCeilingSamples, impl::kCacheSampleSeconds);
        std::sort(v.begin(), v.end());
        return std::make_pair(v.back(), v[v.size() / 2]);
      };
      const auto t = sample(impl::BandwidthKernel::Triad), p = sample(impl::BandwidthKernel::InPlace);
      std::printf("%10.0f %10.1f %10.1f %10.1f %10.1f\n", kib, t.first, t.second, p.first, p.second);
    }
    return 0;
  }
  const Family* family = find_family(argv[1]);
  if (!family) {
    std::cerr << "no family " << argv[1] << "\n";
    return 2;
  }
  struct Row {
    VariantInfo info;
    std::unique_ptr<Instance> inst;
    std::vector<double> t;
    std::string note;
  };
  std::vector<Row> rows;
  for (auto& v : family->variants(params, ctx)) {
    if (!only.empty() && std::find(only.begin(), only.end(), v.name) == only.end()) continue;
    Row r{v, nullptr, {}, ""};
    if (v.unavailable) {
      r.note = "unavailable: " + *v.unavailable;
      rows.push_back(std::move(r));
      continue;
    }
    try {
      r.inst = family->instantiate(params, v.name, ctx);
      auto c = r.inst->check();
      if (!c.passed) {
        r.note = "CHECK FAILED: " + c.message;
        r.inst.reset();
      }
    } catch (const std::exception& e) {
      r.note = std::string("error: ") + e.what();
      r.inst.reset();
    }
    rows.push_back(std::move(r));
  }
  // Interleaved repetitions: each rep times every variant once, so drift hits all alike.
  for (int rep = 0; rep < reps; ++rep) {
    for (auto& r : rows) {
      if (!r.inst) continue;
      int iters = 1;
      double s = 0;
      for (;;) {
        double self = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < iters; ++k) {
          r.inst->run();
          if (auto st = r.inst->self_timed_seconds()) self += *st;
        }
        const auto t1 = std::chrono::steady_clock::now();
        s = r.inst->self_timed_seconds() ? self : std::chrono::duration<double>(t1 - t0).count();
        if (std::chrono::duration<double>(t1 - t0).count() > 0.002 || iters > (1 << 20)) break;
        iters *= 4;
      }
      r.t.push_back(s / iters);
    }
  }
  const Row* first = nullptr;
  for (const auto& r : rows) {
    if (r.inst && !first) first = &r;
  }
  const auto median_ratio = [&](const Row& r) {
    std::vector<double> q;
    for (std::size_t i = 0; i < r.t.size(); ++i) q.push_back(first->t[i] / r.t[i]);
    std::sort(q.begin(), q.end());
    return q.empty() ? 0.0 : q[q.size() / 2];
  };
  std::vector<double> ratio;
  for (const auto& r : rows) ratio.push_back(r.inst ? median_ratio(r) : 0.0);
  std::printf("%-24s %11s %11s %7s %9s %9s  %s\n", "variant", "min_us", "median_us", "ratio", "GFLOP/s",
              "GB/s", "metrics (rates at min)");
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    auto& r = rows[ri];
    if (!r.inst) {
      std::printf("%-24s %s\n", r.info.name.c_str(), r.note.c_str());
      continue;
    }
    std::sort(r.t.begin(), r.t.end());
    const double med = r.t[r.t.size() / 2], best = r.t.front();
    const Work w = r.inst->work();
    std::string m;
    for (auto& [k, v] : r.inst->metrics()) m += k + "=" + std::to_string(v) + " ";
    std::printf("%-24s %11.3f %11.3f %7.3f %9.2f %9.2f  %s\n", r.info.name.c_str(), best * 1e6, med * 1e6,
                ratio[ri], w.flops / best / 1e9, w.bytes / best / 1e9, m.c_str());
  }
  return 0;
}
