// detect_cache_sizes: the data/unified caches of CPU 0 from Linux sysfs.

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

/// "48K", "1024K", "32M" -> bytes; 0 when unreadable.
double parse_size(const std::string& text) {
  if (text.empty()) return 0;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : ' ';
  if (unit == 'K') return value * 1024;
  if (unit == 'M') return value * 1024 * 1024;
  if (unit == 'G') return value * 1024 * 1024 * 1024;
  return value;
}

}  // namespace

ops::CacheSizes detect_cache_sizes() {
  ops::CacheSizes sizes;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const std::string level = read_line(dir + "level");
    const double bytes = parse_size(read_line(dir + "size"));
    if (level == "1") sizes.l1_bytes = bytes;
    if (level == "2") sizes.l2_bytes = bytes;
    if (level == "3" || (level == "4" && bytes > sizes.llc_bytes)) sizes.llc_bytes = bytes;
  }
  if (sizes.llc_bytes == 0) sizes.llc_bytes = sizes.l2_bytes;  // no L3: the L2 is the last level
  return sizes;
}

}  // namespace tfbench::workloads
