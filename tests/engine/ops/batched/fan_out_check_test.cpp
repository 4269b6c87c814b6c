// The fan-out check (ops/batched/fan_out_check.hpp): calls of known timing replayed through its
// decisions (exact, no clock): a fan-out well ahead is left alone but for its rare sequential probes
// and timed once in kSampleFar calls, a slower one is withheld and probed every kProbeEvery calls
// until it pays again, an interrupted call withholds nothing, a preempted first sequential probe does
// not stand.

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "ops/batched/fan_out_check.hpp"
#include "ops/batched/lane_balance.hpp"

using tfbench::impl::batched::FanOutCheck;

namespace {

constexpr std::uint64_t kShape = 0x5eed;
constexpr std::int64_t kCount = 512;

/// The calls the check had timed (fan-outs and sequential calls alike), as balanced_openmp_lanes
/// times them.
int g_timed_calls = 0;

/// One call through the check: a fan-out takes fan(call) ticks, the calling thread alone seq(call);
/// an untimed fan-out reports no ticks. Returns whether it fanned out.
bool call(int index, const std::function<std::int64_t(int)>& fan,
          const std::function<std::int64_t(int)>& seq) {
  FanOutCheck check(tfbench::impl::batched::lane_key(kShape, kCount, 2));
  if (!check.timed()) {
    REQUIRE(check.fan_out());  // only fan-outs go untimed
    check.ran_untimed_fan_out();
    return true;
  }
  ++g_timed_calls;
  if (check.fan_out()) {
    check.ran_fan_out(fan(index));
    return true;
  }
  check.ran_sequential(seq(index));
  return false;
}

bool withheld_now() {
  // A check constructed only to read the state leaves it as it was (no call reported).
  return FanOutCheck(tfbench::impl::batched::lane_key(kShape, kCount, 2)).withheld();
}

}  // namespace

TEST_CASE("a fan-out twice as fast as the calling thread runs on, but for rare sequential probes",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  std::vector<int> sequential_calls;
  for (int i = 0; i < 2100; ++i) {
    if (!call(
            i, [](int) { return 1000; }, [](int) { return 2000; }))
      sequential_calls.push_back(i);
    CHECK_FALSE(withheld_now());
  }
  // kFirstFanOuts fan-outs, a sequential probe, kFirstFanOuts more, the second probe; then one
  // every kRefreshFar fan-outs (the fan-out is not within kCloseRatio of the calling thread).
  const int first = FanOutCheck::kFirstFanOuts;
  const int second = first + 1 + FanOutCheck::kFirstFanOuts;
  const int refresh = second + 1 + FanOutCheck::kRefreshFar;
  CHECK(sequential_calls == std::vector<int>{first, second, refresh, refresh + 1 + FanOutCheck::kRefreshFar});
}

TEST_CASE("a fan-out well ahead is timed once in kSampleFar calls, and still withheld soon after it slows",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  g_timed_calls = 0;
  int slow_from = 1 << 30;
  const auto fan = [&](int i) -> std::int64_t { return i < slow_from ? 1000 : 3000; };
  const auto seq = [](int) -> std::int64_t { return 2000; };
  const int calls = 1000;
  for (int i = 0; i < calls; ++i) call(i, fan, seq);
  // The first fan-outs and the two first sequential probes are timed, then one fan-out in
  // kSampleFar (the one after a sequential probe among them) and each probe every kRefreshFar.
  const int first = 2 * (FanOutCheck::kFirstFanOuts + 1);
  const int sampled = (calls - first + FanOutCheck::kSampleFar - 1) / FanOutCheck::kSampleFar;
  CHECK(g_timed_calls == first + sampled);
  CHECK_FALSE(withheld_now());

  // Three times slower than before, 1.5 times the calling thread: the sampled fan-outs raise the
  // mean by an eighth each until it is close (four of them); from there every call is timed (a
  // sequential probe first where kRefreshEvery fan-outs have passed), and the mean passes
  // kSwitchRatio times the sequential time within a few calls (30 in all here).
  slow_from = calls;
  int withheld_at = -1;
  for (int i = calls; i < calls + 400 && withheld_at < 0; ++i) {
    call(i, fan, seq);
    if (withheld_now()) withheld_at = i;
  }
  REQUIRE(withheld_at >= 0);
  CHECK(withheld_at - calls <= 4 * FanOutCheck::kSampleFar + FanOutCheck::kRefreshEvery + 1);
}

TEST_CASE("a fan-out close to the calling thread is measured against it every kRefreshEvery fan-outs",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  g_timed_calls = 0;
  int sequential = 0;
  const int calls = 1000;
  for (int i = 0; i < calls; ++i)
    sequential += call(
                      i, [](int) { return 1900; }, [](int) { return 2250; })
                      ? 0
                      : 1;
  CHECK_FALSE(withheld_now());
  CHECK(g_timed_calls == calls);  // close: every call timed
  // Two first probes, then one per kRefreshEvery fan-outs.
  const int after_first = calls - 2 * (FanOutCheck::kFirstFanOuts + 1);
  CHECK(sequential == 2 + after_first / (FanOutCheck::kRefreshEvery + 1));
}

TEST_CASE("a fan-out slower than the calling thread is withheld, probed, and resumed when it pays again",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  int fast_from = 1 << 30;  // the call from which the fan-out is fast again
  const auto fan = [&](int i) -> std::int64_t { return i < fast_from ? 3300 : 1900; };
  const auto seq = [](int) -> std::int64_t { return 2300; };
  std::vector<int> fan_outs;
  for (int i = 0; i < 400; ++i)
    if (call(i, fan, seq)) fan_outs.push_back(i);
  CHECK(withheld_now());
  // Withheld at the first sequential probe (3300 > 1.05 x 2300); then one probe each kProbeEvery + 1.
  REQUIRE(fan_outs.size() >= 2);
  CHECK(fan_outs[0] == 0);
  CHECK(fan_outs[FanOutCheck::kFirstFanOuts - 1] == FanOutCheck::kFirstFanOuts - 1);
  const int withheld_at = FanOutCheck::kFirstFanOuts;
  std::vector<int> probes(fan_outs.begin() + FanOutCheck::kFirstFanOuts, fan_outs.end());
  REQUIRE_FALSE(probes.empty());
  CHECK(probes.front() == withheld_at + FanOutCheck::kProbeEvery + 1);
  for (std::size_t p = 1; p < probes.size(); ++p)
    CHECK(probes[p] - probes[p - 1] == FanOutCheck::kProbeEvery + 1);

  // The fan-out pays again: the next probe resumes it, and it stays.
  fast_from = 400;
  int first_fan_out = -1, sequential_after = 0;
  for (int i = 400; i < 800; ++i) {
    const bool fanned = call(i, fan, seq);
    if (fanned && first_fan_out < 0) first_fan_out = i;
    if (!fanned && first_fan_out >= 0) ++sequential_after;
  }
  REQUIRE(first_fan_out >= 0);
  CHECK(first_fan_out <= 400 + FanOutCheck::kProbeEvery + 1);
  CHECK_FALSE(withheld_now());
  CHECK(sequential_after <= 400 / FanOutCheck::kRefreshEvery + 1);  // only the refresh probes
}

TEST_CASE("an interrupted fan-out withholds nothing; a preempted first sequential probe does not stand",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  // One fan-out in 50 hit by a 100x interrupt: the mean moves an eighth at most, and recovers.
  for (int i = 0; i < 2000; ++i) {
    call(
        i, [](int k) -> std::int64_t { return k % 50 == 49 ? 190000 : 1900; }, [](int) { return 2300; });
    CHECK_FALSE(withheld_now());
  }

  FanOutCheck::reset_thread();
  // The first sequential probe was preempted (1 ms); the second ran at 2300: the fan-out at 3300 is
  // withheld at the second, not left running against a sequential time of 1 ms.
  int sequential = 0;
  const auto seq = [&](int) -> std::int64_t { return sequential++ == 0 ? 1000000 : 2300; };
  int i = 0;
  for (; i < 2 * (FanOutCheck::kFirstFanOuts + 1); ++i)
    call(
        i, [](int) { return 3300; }, seq);
  CHECK(sequential == 2);
  CHECK(withheld_now());
}

TEST_CASE("batches of another shape, count or lane count have checks of their own",
          "[batched][fan-out-check]") {
  FanOutCheck::reset_thread();
  for (int i = 0; i < 100; ++i)
    call(
        i, [](int) { return 3300; }, [](int) { return 2300; });
  CHECK(withheld_now());
  CHECK_FALSE(FanOutCheck(tfbench::impl::batched::lane_key(kShape + 1, kCount, 2)).withheld());
  CHECK_FALSE(FanOutCheck(tfbench::impl::batched::lane_key(kShape, kCount + 1, 2)).withheld());
  CHECK_FALSE(FanOutCheck(tfbench::impl::batched::lane_key(kShape, kCount, 3)).withheld());
  CHECK(FanOutCheck(tfbench::impl::batched::lane_key(kShape, kCount, 3))
            .fan_out());  // a new batch starts with the fan-out Auto chose
}
