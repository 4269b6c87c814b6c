// Session-entry overhead: median ns per empty with_session, side by side in one process with an
// inline call and an empty Kokkos kernel on Serial and OpenMP (the cost a one-thread context avoids).
// Not a test: timings on a shared machine are noisy, so it reports medians and does not assert.
//
//   tfbench_exec_session_bench [--threads N] [--batches B] [--iterations I]

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tfbench/engine/exec/backend.hpp"

namespace {

int arg(int argc, char** argv, const char* flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], flag) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

struct Case {
  std::string name;
  std::function<void(int)> run;  // runs the measured thing `iterations` times
  std::vector<double> samples;   // ns per iteration, one per batch
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

volatile int sink = 0;

}  // namespace

int main(int argc, char** argv) {
  const int threads = arg(argc, argv, "--threads", 1);
  const int batches = arg(argc, argv, "--batches", 101);
  const int iterations = arg(argc, argv, "--iterations", 2000);
  Kokkos::InitArguments init;
  init.num_threads = threads;
  init.disable_warnings = true;
  Kokkos::initialize(init);
  {
    auto serial = tfbench::CpuBackend::serial();
    std::vector<Case> cases;
    cases.push_back({"inline call (baseline)", [](int n) {
                       for (int i = 0; i < n; ++i) sink = sink + 1;
                     }});
    cases.push_back({"with_session, CpuBackend Serial", [&](int n) {
                       for (int i = 0; i < n; ++i)
                         (void)serial.with_session([](tfbench::Session&) { sink = sink + 1; });
                     }});
#if defined(KOKKOS_ENABLE_OPENMP)
    auto openmp1 = tfbench::CpuBackend::openmp(1);
    auto openmp_all = tfbench::CpuBackend::openmp();
    cases.push_back({"with_session, CpuBackend OpenMP budget 1", [&](int n) {
                       for (int i = 0; i < n; ++i)
                         (void)openmp1.with_session([](tfbench::Session&) { sink = sink + 1; });
                     }});
    if (openmp_all.context().threads > 1) {
      cases.push_back(
          {"with_session, CpuBackend OpenMP budget " + std::to_string(openmp_all.context().threads),
           [&](int n) {
             for (int i = 0; i < n; ++i)
               (void)openmp_all.with_session([](tfbench::Session&) { sink = sink + 1; });
           }});
    }
    cases.push_back({"empty parallel_for + fence, Kokkos::OpenMP", [](int n) {
                       for (int i = 0; i < n; ++i) {
                         Kokkos::parallel_for("tfbench::bench::exec::empty_openmp",
                                              Kokkos::RangePolicy<Kokkos::OpenMP>(0, 1), [](int) {});
                         Kokkos::OpenMP().fence();
                       }
                     }});
#endif
    auto device = tfbench::DeviceBackend::make();
    cases.push_back({"with_session, DeviceBackend", [&](int n) {
                       for (int i = 0; i < n; ++i)
                         (void)device.with_session([](tfbench::Session&) { sink = sink + 1; });
                     }});
    cases.push_back({"empty parallel_for + fence, Kokkos::Serial", [](int n) {
                       for (int i = 0; i < n; ++i) {
                         Kokkos::parallel_for("tfbench::bench::exec::empty_serial",
                                              Kokkos::RangePolicy<Kokkos::Serial>(0, 1), [](int) {});
                         Kokkos::Serial().fence();
                       }
                     }});
    for (auto& c : cases) c.run(iterations);  // warm up
    // Interleave the cases batch by batch, so drift affects them alike.
    for (int b = 0; b < batches; ++b) {
      for (auto& c : cases) {
        const auto t0 = std::chrono::steady_clock::now();
        c.run(iterations);
        const auto t1 = std::chrono::steady_clock::now();
        c.samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations);
      }
    }
    std::printf(
        "session entry overhead: %d OpenMP thread(s), %d batches x %d iterations, median ns/iteration\n",
        threads, batches, iterations);
    for (auto& c : cases) {
      std::sort(c.samples.begin(), c.samples.end());
      std::printf("  %-48s median %8.1f   p10 %8.1f   p90 %8.1f\n", c.name.c_str(), median(c.samples),
                  c.samples[c.samples.size() / 10], c.samples[c.samples.size() * 9 / 10]);
    }
  }
  Kokkos::finalize();
  return 0;
}
