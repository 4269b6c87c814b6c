// The host load of a row: what else ran on the worker's CPUs while it was timed (other processes,
// the kernel, the hypervisor's steal), from /proc's tick counters, with the worker's own time and its
// helper processes' subtracted.

#include "tfbench/workloads/host_load.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace tfbench::workloads {
namespace {

// user nice system idle iowait irq softirq steal guest guest_nice
const char* const kStatBefore =
    "cpu  300 0 60 1000 10 0 4 6 0 0\n"
    "cpu0 100 0 20 500 5 0 2 3 0 0\n"
    "cpu1 200 0 40 500 5 0 2 3 0 0\n"
    "intr 12345\n";
const char* const kStatAfter =
    "cpu  460 0 90 1090 10 0 4 26 0 0\n"
    "cpu0 140 0 30 550 5 0 2 13 0 0\n"
    "cpu1 320 0 60 540 5 0 2 13 0 0\n"
    "intr 12399\n";

TEST_CASE("/proc/stat: the busy, steal and total ticks of the worker's CPUs only", "[host_load]") {
  const auto both = parse_proc_stat(kStatBefore, CpuSet::of({0, 1}));
  REQUIRE(both);
  CHECK(both->busy == 100 + 20 + 2 + 200 + 40 + 2);
  CHECK(both->steal == 6);
  CHECK(both->total == 630 + 750);
  const auto one = parse_proc_stat(kStatBefore, CpuSet::of({1}));
  REQUIRE(one);
  CHECK(one->busy == 242);  // the aggregate "cpu " line and cpu0 are not read
  CHECK_FALSE(parse_proc_stat(kStatBefore, CpuSet::of({7})));
  CHECK_FALSE(parse_proc_stat("garbage\n", CpuSet::of({0})));
  // A kernel without the steal column still gives busy and total.
  const auto old_kernel = parse_proc_stat("cpu0 10 0 5 100 1 2 3\n", CpuSet::of({0}));
  REQUIRE(old_kernel);
  CHECK(old_kernel->steal == 0);
  CHECK(old_kernel->total == 121);
}

TEST_CASE("/proc/<pid>/stat: utime + stime, counted from the last ')' of the command", "[host_load]") {
  CHECK(parse_process_ticks("42 (tfbench) R 1 42 42 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 3 0") == 325u);
  // A command with spaces and parentheses in it.
  CHECK(parse_process_ticks("7 (a (b) c) S 1 7 7 0 -1 0 0 0 0 0 10 20 0 0 20 0 1 0") == 30u);
  CHECK_FALSE(parse_process_ticks("7 (short) S 1 7"));
  CHECK_FALSE(parse_process_ticks("no parenthesis"));
}

TEST_CASE("/proc/<pid>/stat: the state letter after the last ')'; a spinner is runnable, a sleeper not",
          "[host_load]") {
  using tfbench::workloads::parse_process_state;
  using tfbench::workloads::process_runnable;
  CHECK(parse_process_state("42 (tfbench) R 1 42") == 'R');
  CHECK(parse_process_state("7 (a (b) c) S 1 7") == 'S');
  CHECK(parse_process_state("no parenthesis") == 0);
  CHECK(parse_process_state("7 (cut)") == 0);
  CHECK(process_runnable(getpid()));  // this thread, reading
  const pid_t sleeper = fork();
  REQUIRE(sleeper >= 0);
  if (sleeper == 0) {
    pause();
    _exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(process_runnable(sleeper));
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
}

TEST_CASE("other work is the CPUs' busy time less the worker's and its helpers', over the capacity",
          "[host_load]") {
  auto before = parse_proc_stat(kStatBefore, CpuSet::of({0, 1}));
  auto after = parse_proc_stat(kStatAfter, CpuSet::of({0, 1}));
  REQUIRE(before);
  REQUIRE(after);
  // Too short an interval says nothing: 30 ticks of capacity.
  HostLoad short_row;
  CpuTicks t0, t1;
  t1.total = kMinHostTicks - 10;
  t1.busy = 20;
  short_row.add(t0, t1);
  CHECK_FALSE(short_row.measured());
  CHECK(std::isnan(short_row.other()));
  CHECK_FALSE(short_row.busy());
  // Busy rose by 190 ticks of 300 (steal 20); the worker used 100 of them.
  before->self = 1000;
  after->self = 1100;
  HostLoad plain;
  CHECK_FALSE(plain.measured());
  CHECK(std::isnan(plain.other()));
  plain.add(before, after);
  CHECK(plain.other() == Catch::Detail::Approx(90.0 / 300.0));
  CHECK(plain.steal() == Catch::Detail::Approx(20.0 / 300.0));
  CHECK(plain.busy());
  // A helper (the NumPy runner) used 60 of the others: the measurement's own time.
  before->helpers = {{77, 500}, {78, 10}};
  after->helpers = {{77, 560}, {79, 999}};  // 78 exited, 79 started: neither counts
  HostLoad with_helper;
  with_helper.add(before, after);
  CHECK(with_helper.other() == Catch::Detail::Approx(30.0 / 300.0));
  // ... but only while its own variant is timed: during another's it is interference.
  HostLoad helper_of_another;
  helper_of_another.add(before, after, false);
  CHECK(helper_of_another.other() == Catch::Detail::Approx(90.0 / 300.0));
  // A missing end leaves the interval out; intervals add up.
  with_helper.add(std::nullopt, after);
  with_helper.add(before, after);
  CHECK(with_helper.other() == Catch::Detail::Approx(60.0 / 600.0));
  CHECK_FALSE(with_helper.busy());  // 10% is not more than kBusyHostShare
  // The worker alone on its CPUs: nothing else.
  after->helpers.clear();
  after->self = before->self + 190;
  HostLoad alone;
  alone.add(before, after);
  CHECK(alone.other() == 0.0);
}

TEST_CASE("a process spinning beside the worker is other work, and none once it is a helper", "[host_load]") {
  const pid_t spinner = fork();
  REQUIRE(spinner >= 0);
  if (spinner == 0) {
    for (volatile unsigned long i = 0;; i = i + 1) {
    }
  }
  const CpuSet cpus = CpuSet::allowed();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto before = read_cpu_ticks(cpus, {spinner});
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // this process sleeps: not busy
  const auto after = read_cpu_ticks(cpus, {spinner});
  kill(spinner, SIGKILL);
  waitpid(spinner, nullptr, 0);
  REQUIRE(before);
  REQUIRE(after);
  REQUIRE(after->helpers.size() == 1);
  CpuTicks before_alone = *before, after_alone = *after;
  before_alone.helpers.clear();
  after_alone.helpers.clear();
  HostLoad as_other, as_helper;
  as_other.add(before_alone, after_alone);
  as_helper.add(before, after);
  // One spinning process is one CPU's worth of the capacity, less what the hypervisor stole; the
  // same interval with the spinner as a helper counts that much less (whatever else ran meanwhile).
  const double one_cpu = 1.0 / cpus.count();
  CHECK(as_other.other() - as_helper.other() >= 0.5 * one_cpu);
  CHECK(as_other.other() - as_helper.other() <= one_cpu + 0.05);
}

TEST_CASE("the next variant waits until a helper stops spinning, at most the limit", "[host_load]") {
  // A helper that spins about 0.15 s after its call, as a runner's OpenBLAS threads do, then sleeps.
  const pid_t helper = fork();
  REQUIRE(helper >= 0);
  if (helper == 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
    while (std::chrono::steady_clock::now() < until) {
    }
    pause();
    _exit(0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(wait_until_idle({helper}, 5.0));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited >= 0.1);  // not before it stopped (a tick of its is 10 ms)
  CHECK(waited < 2.0);
  kill(helper, SIGKILL);
  waitpid(helper, nullptr, 0);

  // One that never stops: the wait gives up at its limit.
  const pid_t spinner = fork();
  REQUIRE(spinner >= 0);
  if (spinner == 0) {
    for (volatile unsigned long i = 0;; i = i + 1) {
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  CHECK_FALSE(wait_until_idle({spinner}, 0.3));
  const double gave_up = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  CHECK(gave_up >= 0.3);
  CHECK(gave_up < 1.5);
  kill(spinner, SIGKILL);
  waitpid(spinner, nullptr, 0);
  // No helpers, or one that is gone: nothing to wait for.
  CHECK(wait_until_idle({}, 0.5));
  CHECK(wait_until_idle({spinner}, 0.5));
}

}  // namespace
}  // namespace tfbench::workloads
