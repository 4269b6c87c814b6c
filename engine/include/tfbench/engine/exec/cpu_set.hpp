#pragma once
// The CPU set a backend claims on the process-wide permit arbiter. It is an admission identity:
// backends whose sets overlap are serialized. tfbench does not pin threads (OMP_PROC_BIND and the
// OpenMP runtime place them), so a set promises exclusion, not placement.

#include <bitset>
#include <initializer_list>
#include <string>

namespace tfbench {

class CpuSet {
 public:
  static constexpr int kMaxCpus = 1024;

  CpuSet() = default;
  /// The CPUs in this process's affinity mask (all online CPUs where that is unknown).
  static CpuSet allowed();
  /// The listed CPUs; throws std::out_of_range for an index outside [0, kMaxCpus).
  static CpuSet of(std::initializer_list<int> cpus);

  void add(int cpu);
  bool contains(int cpu) const;
  bool empty() const { return bits_.none(); }
  int count() const { return static_cast<int>(bits_.count()); }
  bool overlaps(const CpuSet& other) const { return (bits_ & other.bits_).any(); }
  bool operator==(const CpuSet& other) const { return bits_ == other.bits_; }
  bool operator!=(const CpuSet& other) const { return !(*this == other); }
  /// "0-3,6" style listing.
  std::string to_string() const;

 private:
  std::bitset<kMaxCpus> bits_;
};

}  // namespace tfbench
