#include "common/buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace tfbench::workloads {

void* map_huge_page_block(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  // Over-map by one huge page, then give back the head and tail around the aligned block.
  void* raw = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHuge - 1) / kHuge * kHuge;
  const std::size_t head = aligned - start, tail = kHuge - head;
  if (head > 0) munmap(raw, head);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* block = reinterpret_cast<void*>(aligned);
#if defined(MADV_HUGEPAGE)
  (void)madvise(block, bytes, MADV_HUGEPAGE);
#endif
  return block;
}

void unmap_block(void* block, std::size_t bytes) {
  if (block != nullptr) munmap(block, bytes);
}

}  // namespace tfbench::workloads
