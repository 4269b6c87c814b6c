#pragma once
// Whether a fan-out that Auto chose still beats running the batch on the calling thread, checked on
// the calls themselves. Auto's choice comes from the tuning (measured once, `tfbench tune`) or the
// cost model; what a fan-out costs can change after that. On the 2-core Zen 4 VM (2026-12-06, 512
// f64 items of 4 x 4 in the caches, two threads) every two-lane variant ran 1.9-2.1 us a call for
// stretches of minutes and 3.1-3.5 us for others, the calling thread alone a steady 2.27-2.5: the tune
// had chosen the fan-out in a fast stretch, and the run paid the slow ones.
//
// The rule, per calling thread and per batch shape, count and lane count (the lanes' split's key):
// each fan-out's time (fork to join) enters a running mean; after kFirstFanOuts fan-outs one call runs
// on the calling thread alone to measure that (twice, kFirstSequential, the least counting; again
// every kRefreshEvery fan-outs while the two are within kCloseRatio, every kRefreshFar otherwise, so
// that a fan-out twice as fast pays a sequential call in a thousand); a fan-out slower than the sequential
// time by kSwitchRatio is withheld: the batch runs on the calling thread, and every kProbeEvery such calls
// one fan-out probes whether it pays again. While the fan-out is well ahead (not within kCloseRatio),
// one fan-out in kSampleFar is timed, and its lanes' split is learned only then (lane_balance.hpp): a
// timed fan-out reads the clock four times on the calling thread and learns after the join, 30-50 ns
// a call on the Zen 4 VM, 1% of a 5 us call. Sampled, the check sees a slower fan-out a few tens of
// calls later; from within kCloseRatio on, every call is timed again. The sequential time is
// measured, not estimated from lane 0's rate: in the VM's slow stretches lane 0 itself ran its items at
// half its sequential rate (two vCPUs on one core's two hardware threads, as it looks), so the estimate
// called the slow fan-out twice as fast as it was. Nothing here is set for one machine: the times are
// the machine's, the constants are ratios and counts.

#include <cstdint>

namespace tfbench::impl::batched {

/// What a batch's lanes ran: the items lane 0 ran (the batch's count on one lane), and whether the
/// fan-out check ran the batch on the calling thread instead of the fan-out.
struct LanesRan {
  std::int64_t first_lane_items = 0;
  bool fan_out_withheld = false;
};

/// The check of one call. fan_out() says how to run it; the caller times the run with lane_ticks()
/// and reports it through ran_fan_out or ran_sequential.
class FanOutCheck {
 public:
  static constexpr double kSwitchRatio = 1.05;  // withheld when fan-out > 1.05 x sequential, back < 1/1.05
  static constexpr double kCloseRatio = 0.8;    // fan-out above 0.8 x sequential: measure sequential
  static constexpr int kProbeEvery = 32;        // sequential calls between fan-out probes while withheld
  static constexpr int kRefreshEvery = 64;      // fan-outs between sequential probes while close
  static constexpr int kRefreshFar = 1024;      // ... and while the fan-out is well ahead
  static constexpr int kFirstFanOuts = 4;       // fan-outs before each first sequential probe (warm threads)
  static constexpr int kFirstSequential = 2;    // first sequential probes, the least of which counts
  static constexpr int kSampleFar = 8;          // fan-outs a timed one while well ahead

  /// The calling thread's check of the batches of `lane_key` (lane_balance.hpp: one shape, count and
  /// lane count).
  explicit FanOutCheck(std::uint64_t lane_key);

  /// Whether this call fans out (else its items run on the calling thread).
  bool fan_out() const { return fan_out_; }
  /// Whether this call is timed (else a fan-out the caller does not time, nor its lanes: report it
  /// through ran_untimed_fan_out).
  bool timed() const { return timed_; }
  /// After a timed fan-out: its ticks from before the fork to after the join.
  void ran_fan_out(std::int64_t ticks);
  /// After a fan-out that was not timed.
  void ran_untimed_fan_out();
  /// After a call on the calling thread: its ticks.
  void ran_sequential(std::int64_t ticks);
  /// Whether the batch's fan-out is withheld after this call (for the report).
  bool withheld() const;

  /// Forgets what the calling thread learned (tests).
  static void reset_thread();

 private:
  struct Entry;
  static Entry* table();  // the calling thread's
  static void decide(Entry& e);

  Entry* entry_;
  bool fan_out_ = true;
  bool timed_ = true;
};

}  // namespace tfbench::impl::batched
