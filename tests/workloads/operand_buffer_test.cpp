// The operands' placement (common/buffer.hpp): every variant's operand k at the same offset of its
// own huge-page-aligned block, advised for transparent huge pages before the first touch, zeroed.
// On 4 KiB pages the L2 sets a buffer's lines compete for followed the kernel's choice of physical
// pages, and one route timed as two variants read 0.85-1.37x of itself.

#include <catch2/catch.hpp>

#include "common/buffer.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tfbench::workloads::AlignedBuffer;
using tfbench::workloads::operand_page_offset;

std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  std::string flags;  // its VmFlags line
};

/// The mappings of /proc/self/smaps with their VmFlags.
std::vector<Mapping> mappings() {
  std::ifstream smaps("/proc/self/smaps");
  std::vector<Mapping> out;
  std::string line;
  while (std::getline(smaps, line)) {
    Mapping m;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> m.begin >> dash >> m.end && dash == '-')
      out.push_back(m);
    else if (!out.empty() && line.rfind("VmFlags:", 0) == 0)
      out.back().flags = line;
  }
  return out;
}

/// The VmFlags of the mapping that holds `p` ("" when none does).
std::string vm_flags_of(const void* p) {
  for (const Mapping& m : mappings())
    if (m.begin <= address(p) && address(p) < m.end) return m.flags;
  return "";
}

/// How many bytes of [p, p + bytes) lie in mappings advised MADV_HUGEPAGE ("hg" in their VmFlags).
std::size_t advised_bytes(const void* p, std::size_t bytes) {
  const std::uintptr_t first = address(p), last = first + bytes;
  std::size_t advised = 0;
  for (const Mapping& m : mappings())
    if (m.begin < last && first < m.end && m.flags.find(" hg") != std::string::npos)
      advised += std::min(m.end, last) - std::max(m.begin, first);
  return advised;
}

/// glibc serves blocks of any size from its heap and keeps what is freed there for the next ones.
struct HeapAllocations {
  HeapAllocations() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  ~HeapAllocations() {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  }
};

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(in, text);
  return text;
}

}  // namespace

TEST_CASE("operand buffers: operand k at k KiB of a huge-page-aligned block, alike for every variant",
          "[workloads]") {
  for (const std::size_t count : {std::size_t{1}, std::size_t{2048}, std::size_t{300000}}) {
    for (std::size_t k = 0; k < 3; ++k) {
      const AlignedBuffer<double> first(count, 1, operand_page_offset(k)),
          second(count, 2, operand_page_offset(k));
      CHECK(operand_page_offset(k) == k * 1024);
      CHECK(address(first.data()) % AlignedBuffer<double>::kHugePage == k * 1024);
      CHECK(address(second.data()) % AlignedBuffer<double>::kHugePage == k * 1024);
      CHECK(first.size() == count);
      CHECK(std::all_of(first.data(), first.data() + count, [](double x) { return x == 0.0; }));
    }
  }
  CHECK_THROWS(AlignedBuffer<double>(16, 1, 100));   // not a cache line
  CHECK_THROWS(AlignedBuffer<double>(16, 1, 4096));  // beyond the page
}

TEST_CASE("operand buffers are advised for transparent huge pages", "[workloads]") {
  const AlignedBuffer<double> placed(1 << 18, 1, operand_page_offset(1));
  const std::string flags = vm_flags_of(placed.data());
  INFO("THP: " << thp_mode() << "; " << flags);
  REQUIRE_FALSE(flags.empty());
  // "hg": MADV_HUGEPAGE was applied to the mapping (the kernel accepts it whatever the THP mode).
  CHECK(flags.find(" hg") != std::string::npos);
  // The default constructor leaves the allocator's pages alone.
  const AlignedBuffer<double> plain(1 << 18, 1);
  CHECK(vm_flags_of(plain.data()).find(" hg") == std::string::npos);
}

TEST_CASE("a released operand buffer leaves no huge-page advice on memory handed out again", "[workloads]") {
  // The advice belongs to a mapping: given to heap memory it outlived the buffer and reached whatever
  // the allocator put there next (CI: a plain buffer read "hg").
  const HeapAllocations heap;
  const std::size_t count = 1 << 18;
  std::uintptr_t placed_at = 0;
  {
    const AlignedBuffer<double> placed(count, 1, operand_page_offset(0));
    REQUIRE(advised_bytes(placed.data(), count * sizeof(double)) == count * sizeof(double));
    placed_at = address(placed.data());
  }
  for (int i = 0; i < 4; ++i) {
    const AlignedBuffer<double> plain(count, 1);
    INFO("placed at " << std::hex << placed_at << ", plain at " << address(plain.data()));
    CHECK(advised_bytes(plain.data(), count * sizeof(double)) == 0);
  }
}
