// The fan-out check's state: a small direct-mapped table per calling thread (the thread that forks the
// lanes), so that nothing is shared and no call waits on another. A collision only costs a batch what
// it learned.

#include "fan_out_check.hpp"

#include <algorithm>

#include "lane_balance.hpp"

namespace tfbench::impl::batched {

struct FanOutCheck::Entry {
  std::uint64_t key = 0;  // 0: empty
  double fan = 0;         // running mean of a fan-out's ticks (0: none yet)
  double seq = 0;         // running mean of a sequential call's ticks (0: none yet)
  int seq_samples = 0;    // sequential calls measured
  int fan_outs = 0;       // fan-outs since the last sequential call
  int sequential = 0;     // sequential calls since the last fan-out
  bool withheld = false;
};

namespace {

constexpr int kTableBits = 4;
constexpr int kTableSize = 1 << kTableBits;

/// A quarter of each sample enters the mean, a sample beyond 1.5 times the mean as 1.5 times it: a
/// call hit by an interrupt (one in a few hundred 2 us calls on the VM) moves the mean by an eighth at
/// most, a lasting change of speed in a few calls. The first sample is the mean.
double running_mean(const double mean, const double sample) {
  if (mean <= 0) return sample;
  return mean + (std::min(sample, 1.5 * mean) - mean) / 4;
}

}  // namespace

FanOutCheck::FanOutCheck(std::uint64_t key) {
  if (key == 0) key = 1;  // 0 marks an empty entry
  entry_ = &table()[key & (kTableSize - 1)];
  if (entry_->key != key) *entry_ = Entry{key};
  const Entry& e = *entry_;
  if (e.withheld) {
    fan_out_ = e.sequential >= kProbeEvery;
  } else if (e.seq_samples >= kFirstSequential) {
    const bool close = e.fan > kCloseRatio * e.seq;
    fan_out_ = e.fan_outs < (close ? kRefreshEvery : kRefreshFar);
    timed_ = !fan_out_ || close || e.fan_outs % kSampleFar == 0;
  } else {
    fan_out_ = e.fan_outs < kFirstFanOuts;  // each first sequential probe after kFirstFanOuts fan-outs
  }
}

FanOutCheck::Entry* FanOutCheck::table() {
  static thread_local Entry entries[kTableSize];
  return entries;
}

void FanOutCheck::decide(Entry& e) {
  if (e.seq <= 0 || e.fan <= 0) return;
  if (!e.withheld && e.fan > kSwitchRatio * e.seq) {
    e.withheld = true;
    e.sequential = 0;
  } else if (e.withheld && e.fan * kSwitchRatio < e.seq) {
    e.withheld = false;
    e.fan_outs = 0;
  }
}

void FanOutCheck::ran_fan_out(const std::int64_t ticks) {
  Entry& e = *entry_;
  // A probe after sequential calls replaces the mean: the fan-out may run at another speed now.
  e.fan = e.withheld ? static_cast<double>(ticks) : running_mean(e.fan, static_cast<double>(ticks));
  ++e.fan_outs;
  e.sequential = 0;
  decide(e);
}

void FanOutCheck::ran_untimed_fan_out() {
  ++entry_->fan_outs;
}

void FanOutCheck::ran_sequential(const std::int64_t ticks) {
  Entry& e = *entry_;
  // The first samples' least: one preempted first sample would otherwise stand for kRefreshFar calls.
  e.seq = e.seq_samples < kFirstSequential && e.seq > 0 ? std::min(e.seq, static_cast<double>(ticks))
                                                        : running_mean(e.seq, static_cast<double>(ticks));
  ++e.seq_samples;
  ++e.sequential;
  if (!e.withheld) e.fan_outs = 0;  // a sequential probe: the next one after kRefreshEvery fan-outs
  decide(e);
}

bool FanOutCheck::withheld() const {
  return entry_->withheld;
}

void FanOutCheck::reset_thread() {
  Entry* entries = table();
  for (int i = 0; i < kTableSize; ++i) entries[i] = Entry{};
}

}  // namespace tfbench::impl::batched
