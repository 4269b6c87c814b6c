// Developer probe (not a test): times every variant of one case side by side, interleaved, and
// prints medians; for tuning peers before the harness runs them. Usage:
//   tfbench_workloads_probe <family> [key=value ...] [--threads N] [--space serial|openmp] [--reps R]
//                           [--only VARIANT]   (one variant, e.g. for callgrind or perf)

#include <Kokkos_Core.hpp>

#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr
        << "usage: tfbench_workloads_probe <family> [key=value ...] [--threads N] [--space S] [--reps R]\n";
    return 2;
  }
  int threads = 1, reps = 31;
  std::string space = "openmp", only;
  Params params;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads")
      threads = std::atoi(argv[++i]);
    else if (a == "--space")
      space = argv[++i];
    else if (a == "--reps")
      reps = std::atoi(argv[++i]);
    else if (a == "--only")
      only = argv[++i];
    else {
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
    for (int l = 0; l < tfbench::workloads::kMemoryLevels; ++l) {
      const auto level = static_cast<tfbench::ops::MemoryLevel>(l);
      show(tfbench::ops::name(level), c.level(level), "GB/s");
    }
    for (const auto& size : c.llc_sizes) show("llc (ladder)", size, "GB/s");
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
    if (!only.empty() && v.name != only) continue;
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
  std::printf("%-24s %11s %11s %9s %9s  %s\n", "variant", "min_us", "median_us", "GFLOP/s", "GB/s",
              "metrics (rates at min)");
  for (auto& r : rows) {
    if (!r.inst) {
      std::printf("%-24s %s\n", r.info.name.c_str(), r.note.c_str());
      continue;
    }
    std::sort(r.t.begin(), r.t.end());
    const double med = r.t[r.t.size() / 2], best = r.t.front();
    const Work w = r.inst->work();
    std::string m;
    for (auto& [k, v] : r.inst->metrics()) m += k + "=" + std::to_string(v) + " ";
    std::printf("%-24s %11.3f %11.3f %9.2f %9.2f  %s\n", r.info.name.c_str(), best * 1e6, med * 1e6,
                w.flops / best / 1e9, w.bytes / best / 1e9, m.c_str());
  }
  return 0;
}
