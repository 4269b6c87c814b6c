#include "common/buffer.hpp"

#include <sys/mman.h>

namespace tfbench::workloads {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(MADV_HUGEPAGE)
  if (p != nullptr && bytes > 0) (void)madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace tfbench::workloads
