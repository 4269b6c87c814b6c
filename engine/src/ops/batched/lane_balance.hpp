#pragma once
// The split of a batch's items over the lanes of one OpenMP region, learned from the region's own
// timing. The calling thread runs lane 0 and starts at once; a woken thread starts later (0.4-0.6 us
// after lane 0 on the 2-core EPYC VM, libomp and libgomp alike) and may run slower (its items in the
// other core's cache, a busier core), so even chunks leave lane 0 idle at the join. Each region times
// lane 0 and the other lanes' ends; the next region of the same shape, count and lanes moves an
// eighth of the measured imbalance to or from lane 0 (bounded per call, so that one preempted region
// cannot swing the split). Measured on the VM with the learned split alternating call by call with
// even chunks in one process (engine outer-parallel, libxsmm, 512 f64 items from the caches, two
// threads): 4 x 4 items 3.39 -> 3.06 us a call, 8 x 8 8.49 -> 7.94, 16 x 16 49.1 -> 48.8, 32 x 32
// unchanged. Nothing is set by hand: the split follows the machine and its load.

#include <atomic>
#include <cstdint>
#include <initializer_list>

namespace tfbench::impl::batched {

/// `count` items over `lanes` contiguous chunks, lane 0 taking `lead` more items than its even
/// share (fewer when negative) and the other lanes sharing the rest evenly (sizes differ by <= 1).
struct LaneSplit {
  std::int64_t count = 0;
  int lanes = 1;
  std::int64_t lead = 0;

  /// Lane 0's item count.
  std::int64_t first_items() const;
  /// [begin, end) of `lane`'s chunk.
  void chunk(int lane, std::int64_t& begin, std::int64_t& end) const;
};

/// The largest |lead| a split may have: half an even share, so every lane keeps work.
std::int64_t max_lead(std::int64_t count, int lanes);

/// Leads are learned in sixteenths of an item, so that small steps add up.
inline constexpr std::int64_t kLeadScale = 16;

/// The lead (in sixteenths) after one region that ran `split` with the learned `lead_q`: lane 0 ran
/// its items in `first_ticks`, and the last other lane ended `late_ticks` after lane 0 did (negative:
/// before). Lane 0's rate converts the imbalance into items; an eighth of them moves (at most a
/// thirty-second of an even share per call), within max_lead: one region's noise moves the split
/// little, a lasting imbalance moves it in a few regions.
std::int64_t next_lead_q(const LaneSplit& split, std::int64_t lead_q, std::int64_t first_ticks,
                         std::int64_t late_ticks);

/// One region's learning: the split to run (from what earlier regions of `shape_key` with this count
/// and lane count learned) and the lanes' timestamps. lane_started/lane_ended are called by the
/// lanes themselves; learn() by the caller after the join. A region whose lanes do not each run on a
/// thread of their own (`one_thread_per_lane` false: a smaller team, a nested region), or with more
/// than kMaxLanes lanes, splits evenly and learns nothing.
class LaneBalance {
 public:
  static constexpr int kMaxLanes = 64;

  LaneBalance(std::uint64_t shape_key, std::int64_t count, int lanes, bool one_thread_per_lane);
  const LaneSplit& split() const { return split_; }
  /// Before the region: it runs the learned split without timing itself (no clock read, nothing
  /// learned), for the fan-outs the fan-out check leaves untimed (fan_out_check.hpp).
  void leave_untimed() { timed_ = false; }
  void lane_started(int lane);
  void lane_ended(int lane);
  /// The same at a given time in lane_ticks (what the clockless ones read), so that a test can
  /// replay regions of known timing through the learning without a clock.
  void lane_started(int lane, std::int64_t at);
  void lane_ended(int lane, std::int64_t at);
  void learn();
  /// lane_key of the region's shape, count and lanes.
  std::uint64_t key() const { return key_; }

 private:
  std::uint64_t key_ = 0;
  std::int64_t lead_q_ = 0;
  LaneSplit split_;
  bool timed_ = false;
  std::atomic<std::int64_t> first_start_{0};
  // Not zeroed (512 bytes a region): every lane of a timed region writes its end before learn() reads it.
  std::atomic<std::int64_t> ends_[kMaxLanes];
};

/// The clock of the lanes' timing: the x86 time-stamp counter (a read cost 10 ns on the Zen 4 VM,
/// steady_clock's 25, and a region reads it three times), elsewhere steady_clock's nanoseconds. Only
/// intervals measured on one machine are compared (ratios and differences), never turned into seconds.
std::int64_t lane_ticks();

/// What regions share what they learn (the split, the fan-out check): one shape, count and lane count.
std::uint64_t lane_key(std::uint64_t shape, std::int64_t count, int lanes);

/// A shape key from the values that set an item's cost (provider, dimensions, element size, flags).
std::uint64_t shape_key(std::initializer_list<std::int64_t> parts);

}  // namespace tfbench::impl::batched
