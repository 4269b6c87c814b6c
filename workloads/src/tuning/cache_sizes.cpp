// detect_cache_sizes: the data/unified caches of CPU 0 from Linux sysfs, and where sysfs says
// nothing of a level (some hypervisors expose no cache topology there), the C library's CPUID-based
// report (sysconf's _SC_LEVEL*_CACHE_SIZE); the LLC's overrides from the environment.

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tfbench/workloads/tuning.hpp"

namespace tfbench::workloads {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

double sysconf_bytes(int name) {
  const long value = sysconf(name);
  return value > 0 ? static_cast<double>(value) : 0.0;
}

}  // namespace

double parse_byte_size(const std::string& text) {
  if (text.empty()) return 0;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty()) scale = 1;
  if (unit == "K") scale = 1024;
  if (unit == "M") scale = 1024 * 1024;
  if (unit == "G") scale = 1024.0 * 1024 * 1024;
  const double bytes = value * scale;
  return std::isfinite(bytes) && bytes > 0 ? bytes : 0;
}

ops::CacheSizes read_sysfs_cache_sizes(const std::string& cache_dir) {
  ops::CacheSizes sizes;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = cache_dir + "/index" + std::to_string(index) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const std::string level = read_line(dir + "level");
    const double bytes = parse_byte_size(read_line(dir + "size"));
    if (level == "1") sizes.l1_bytes = bytes;
    if (level == "2") sizes.l2_bytes = bytes;
    if (level == "3" || (level == "4" && bytes > sizes.llc_bytes)) sizes.llc_bytes = bytes;
  }
  return sizes;
}

ops::CacheSizes cpuid_cache_sizes() {
  ops::CacheSizes sizes;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  sizes.l1_bytes = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
  sizes.l2_bytes = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  sizes.llc_bytes = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
#if defined(_SC_LEVEL4_CACHE_SIZE)
  const double l4 = sysconf_bytes(_SC_LEVEL4_CACHE_SIZE);
  if (l4 > sizes.llc_bytes) sizes.llc_bytes = l4;
#endif
#endif
  return sizes;
}

DetectedCaches detect_cache_sizes_from(const std::string& sysfs_cache_dir, const ops::CacheSizes& cpuid) {
  DetectedCaches found;
  found.sizes = read_sysfs_cache_sizes(sysfs_cache_dir);
  found.llc_source = found.sizes.llc_bytes > 0 ? "sysfs" : cpuid.llc_bytes > 0 ? "cpuid" : "none";
  bool from_sysfs = false, from_cpuid = false;
  const auto fill = [&](double& level, double reported) {
    if (level > 0) {
      from_sysfs = true;
    } else if (reported > 0) {
      level = reported;
      from_cpuid = true;
    }
  };
  fill(found.sizes.l1_bytes, cpuid.l1_bytes);
  fill(found.sizes.l2_bytes, cpuid.l2_bytes);
  fill(found.sizes.llc_bytes, cpuid.llc_bytes);
  if (found.sizes.llc_bytes == 0) found.sizes.llc_bytes = found.sizes.l2_bytes;  // no L3: the L2 is last
  found.reported_llc_bytes = found.sizes.llc_bytes;
  found.source = from_sysfs && from_cpuid ? "sysfs+cpuid"
                 : from_sysfs             ? "sysfs"
                 : from_cpuid             ? "cpuid"
                                          : "none";
  return found;
}

DetectedCaches with_llc_overrides(DetectedCaches found, const char* user, const char* measured) {
  if (const double bytes = user ? parse_byte_size(user) : 0; bytes > 0) {
    found.sizes.llc_bytes = bytes;
    found.llc_source = kLlcBytesVariable;
  } else if (const double probed = measured ? parse_byte_size(measured) : 0;
             probed > 0 && found.llc_source != "sysfs") {
    found.sizes.llc_bytes = probed;
    found.llc_source = "measured";
  }
  return found;
}

DetectedCaches detect_caches() {
  static const DetectedCaches detected =
      with_llc_overrides(detect_cache_sizes_from(kSysfsCacheDir, cpuid_cache_sizes()),
                         std::getenv(kLlcBytesVariable), std::getenv(kLlcMeasuredVariable));
  return detected;
}

ops::CacheSizes detect_cache_sizes() {
  return detect_caches().sizes;
}

}  // namespace tfbench::workloads
