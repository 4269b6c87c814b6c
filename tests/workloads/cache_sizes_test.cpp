// Cache sizes where sysfs lists no cache topology (a VM whose hypervisor exposes none there): the
// levels come from the C library's CPUID report instead of reading 0, which made `tune` skip every
// L1, L2 and LLC class and Auto class every batch as DRAM; and the LLC, which CPUID can report for a
// whole package, from a measured sweep or the user's variable.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tfbench/workloads/llc_probe.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace {

namespace fs = std::filesystem;
using tfbench::ops::CacheSizes;
using tfbench::workloads::detect_cache_sizes_from;
using tfbench::workloads::read_sysfs_cache_sizes;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("tfbench-cache-sizes-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_index(const fs::path& dir, int index, const std::string& type, int level,
                 const std::string& size) {
  const fs::path d = dir / ("index" + std::to_string(index));
  fs::create_directories(d);
  std::ofstream(d / "type") << type << "\n";
  std::ofstream(d / "level") << level << "\n";
  std::ofstream(d / "size") << size << "\n";
}

}  // namespace

TEST_CASE("sysfs cache sizes: data and unified levels, instruction caches skipped", "[tuning]") {
  TempDir dir;
  write_index(dir.path, 0, "Data", 1, "48K");
  write_index(dir.path, 1, "Instruction", 1, "32K");
  write_index(dir.path, 2, "Unified", 2, "1024K");
  write_index(dir.path, 3, "Unified", 3, "32M");
  const CacheSizes s = read_sysfs_cache_sizes(dir.path.string());
  CHECK(s.l1_bytes == 48.0 * 1024);
  CHECK(s.l2_bytes == 1024.0 * 1024);
  CHECK(s.llc_bytes == 32.0 * 1024 * 1024);
  const auto found = detect_cache_sizes_from(dir.path.string(), CacheSizes{1, 2, 3});
  CHECK(found.sizes.llc_bytes == 32.0 * 1024 * 1024);  // sysfs wins over the CPUID report
  CHECK(found.source == "sysfs");
}

TEST_CASE("No cache topology in sysfs: each level from the CPUID report", "[tuning]") {
  TempDir dir;  // empty, like /sys/devices/system/cpu/cpu0/cache on such a VM
  const CacheSizes cpuid{48.0 * 1024, 1024.0 * 1024, 508.0 * 1024 * 1024};
  const auto found = detect_cache_sizes_from(dir.path.string(), cpuid);
  CHECK(found.sizes.l1_bytes == cpuid.l1_bytes);
  CHECK(found.sizes.l2_bytes == cpuid.l2_bytes);
  CHECK(found.sizes.llc_bytes == cpuid.llc_bytes);
  CHECK(found.source == "cpuid");
  // Only the missing levels are filled in.
  write_index(dir.path, 0, "Data", 1, "32K");
  const auto mixed = detect_cache_sizes_from(dir.path.string(), cpuid);
  CHECK(mixed.sizes.l1_bytes == 32.0 * 1024);
  CHECK(mixed.sizes.l2_bytes == cpuid.l2_bytes);
  CHECK(mixed.source == "sysfs+cpuid");
  // Neither knows: 0 (callers such as the ceilings use their defaults), and no L3 means the L2 is last.
  fs::remove_all(dir.path / "index0");
  const auto none = detect_cache_sizes_from(dir.path.string(), CacheSizes{});
  CHECK(none.sizes.l1_bytes == 0);
  CHECK(none.source == "none");
  const auto no_l3 = detect_cache_sizes_from(dir.path.string(), CacheSizes{32768, 524288, 0});
  CHECK(no_l3.sizes.llc_bytes == 524288);
}

TEST_CASE("This machine's caches are known (sysfs or CPUID)", "[tuning]") {
  const auto found = tfbench::workloads::detect_caches();
  INFO("source: " << found.source);
#if defined(__x86_64__) && defined(__GLIBC__)
  // glibc reads CPUID on x86, so every level is known whatever sysfs lists.
  CHECK(found.sizes.l1_bytes > 0);
  CHECK(found.sizes.l2_bytes > 0);
  CHECK(found.sizes.llc_bytes >= found.sizes.l2_bytes);
#endif
}

TEST_CASE("Byte counts as the LLC variables spell them", "[tuning]") {
  using tfbench::workloads::parse_byte_size;
  CHECK(parse_byte_size("33554432") == 33554432.0);
  CHECK(parse_byte_size("32M") == 32.0 * 1024 * 1024);
  CHECK(parse_byte_size("32768K") == 32.0 * 1024 * 1024);
  CHECK(parse_byte_size("1G") == 1024.0 * 1024 * 1024);
  CHECK(parse_byte_size("") == 0);
  CHECK(parse_byte_size("lots") == 0);
  CHECK(parse_byte_size("32MB") == 0);  // not a unit the variables take
  CHECK(parse_byte_size("-5M") == 0);
}

TEST_CASE("The LLC's overrides: the user's always, the measured one only over a CPUID report", "[tuning]") {
  using tfbench::workloads::with_llc_overrides;
  TempDir dir;
  const CacheSizes cpuid{48.0 * 1024, 1024.0 * 1024, 508.0 * 1024 * 1024};
  const auto reported = detect_cache_sizes_from(dir.path.string(), cpuid);
  CHECK(reported.llc_source == "cpuid");
  CHECK(reported.reported_llc_bytes == cpuid.llc_bytes);

  // The package-wide CPUID figure gives way to the measured capacity; L1 and L2 stay.
  const auto measured = with_llc_overrides(reported, nullptr, "67108864");
  CHECK(measured.sizes.llc_bytes == 64.0 * 1024 * 1024);
  CHECK(measured.llc_source == "measured");
  CHECK(measured.reported_llc_bytes == cpuid.llc_bytes);
  CHECK(measured.sizes.l2_bytes == cpuid.l2_bytes);

  const auto user = with_llc_overrides(reported, "32M", "67108864");
  CHECK(user.sizes.llc_bytes == 32.0 * 1024 * 1024);
  CHECK(user.llc_source == "TFBENCH_LLC_BYTES");

  CHECK(with_llc_overrides(reported, "", nullptr).sizes.llc_bytes == cpuid.llc_bytes);
  CHECK(with_llc_overrides(reported, "nonsense", nullptr).llc_source == "cpuid");

  // sysfs lists the L3: a measured capacity does not replace it, the user's does.
  write_index(dir.path, 0, "Data", 1, "48K");
  write_index(dir.path, 1, "Instruction", 1, "32K");
  write_index(dir.path, 2, "Unified", 2, "1024K");
  write_index(dir.path, 3, "Unified", 3, "32M");
  const auto listed = detect_cache_sizes_from(dir.path.string(), cpuid);
  CHECK(listed.llc_source == "sysfs");
  CHECK(with_llc_overrides(listed, nullptr, "67108864").sizes.llc_bytes == 32.0 * 1024 * 1024);
  CHECK(with_llc_overrides(listed, "96M", nullptr).sizes.llc_bytes == 96.0 * 1024 * 1024);
}

TEST_CASE("The LLC's end in a bandwidth sweep", "[tuning]") {
  using tfbench::workloads::llc_capacity_from_sweep;
  using tfbench::workloads::sweep_at_floor;
  using tfbench::workloads::SweepPoint;
  const double MiB = 1024.0 * 1024;
  // One core of the EPYC VM whose CPUID reports 508 MiB (the in-place kernel, GB/s): the L3 to 16 MiB,
  // partly cached at 32 and 64 MiB, DRAM at 128 MiB.
  const std::vector<SweepPoint> epyc{{2 * MiB, 175}, {4 * MiB, 157}, {8 * MiB, 176}, {16 * MiB, 135},
                                     {32 * MiB, 85}, {64 * MiB, 59}, {128 * MiB, 58}};
  CHECK(sweep_at_floor(epyc));
  // sqrt(176 x 58) = 101 GB/s, crossed 0.63 of the way (log-log) from 16 to 32 MiB.
  const double capacity = llc_capacity_from_sweep(epyc);
  CHECK(capacity > 24 * MiB);
  CHECK(capacity < 26 * MiB);
  // Still falling (85 -> 59 is 31% down) or only one point low: not at the floor yet.
  CHECK_FALSE(sweep_at_floor({epyc.begin(), epyc.begin() + 6}));
  CHECK_FALSE(sweep_at_floor({epyc.begin(), epyc.begin() + 5}));
  // A sweep without an end keeps the report.
  const std::vector<SweepPoint> flat{{2 * MiB, 40}, {4 * MiB, 39}, {8 * MiB, 41}, {16 * MiB, 38}};
  CHECK_FALSE(sweep_at_floor(flat));
  CHECK(llc_capacity_from_sweep(flat) == 0);
  CHECK(llc_capacity_from_sweep({}) == 0);
  // A slow point inside the plateau does not end it early: the last crossing counts.
  std::vector<SweepPoint> dip = epyc;
  dip[1].gbs = 60;
  CHECK(llc_capacity_from_sweep(dip) == Approx(capacity));
  // A crossing exactly at a point: that point's working set.
  const std::vector<SweepPoint> step{{2 * MiB, 100}, {4 * MiB, 50}, {8 * MiB, 25}, {16 * MiB, 25}};
  CHECK(llc_capacity_from_sweep(step) == Approx(4 * MiB));
}
