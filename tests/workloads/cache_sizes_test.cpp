// Cache sizes where sysfs lists no cache topology (a VM whose hypervisor exposes none there): the
// levels come from the C library's CPUID report instead of reading 0, which made `tune` skip every
// L1, L2 and LLC class and Auto class every batch as DRAM.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

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
