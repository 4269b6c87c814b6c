#pragma once
// Host buffers of the peers: 64-byte aligned, first touched by the threads that will use them; and,
// for the operands of a case's variants, at a page offset of the caller's choosing.

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>

namespace tfbench::workloads {

/// A private anonymous mapping of `bytes` (a multiple of 2 MiB) starting on a 2 MiB boundary and
/// advised MADV_HUGEPAGE before its first touch (a kernel without transparent huge pages refuses the
/// advice, which changes nothing else). Its own mapping, not the allocator's: advice given to heap
/// memory outlives the buffer and reaches whatever the allocator puts there next. Throws bad_alloc.
void* map_huge_page_block(std::size_t bytes);
void unmap_block(void* block, std::size_t bytes);

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  /// `count` elements, zero-filled by `threads` OpenMP threads (static schedule: first touch).
  explicit AlignedBuffer(std::size_t count, int threads = 1) : size_(count) {
    const std::size_t bytes = (std::max<std::size_t>(size_, 1) * sizeof(T) + 63) / 64 * 64;
    block_.reset(std::aligned_alloc(64, bytes));
    if (!block_) throw std::bad_alloc();
    data_ = static_cast<T*>(block_.get());
    zero(threads);
  }

  /// The same, placed alike for every variant of a case: in memory of its own advised for 2 MiB
  /// transparent huge pages, starting `page_offset` bytes (a multiple of 64 below 4096) into it.
  /// On 4 KiB pages the physical pages, which the kernel hands out by its history, decide which lines
  /// compete for one set of the physically indexed L2: one route timed as two variants of packed_small
  /// n = 8 (768 KiB of operands in a 1 MiB L2) read 0.85-1.37x of itself in six processes on the EPYC
  /// VM. Within a huge page the sets follow the virtual address; the page offset then decides which
  /// loads falsely wait on stores to another operand (4K aliasing), also alike (operand_page_offset).
  /// Where the kernel gives no huge page (THP `never`) the buffer still has the same virtual layout.
  AlignedBuffer(std::size_t count, int threads, std::size_t page_offset) : size_(count) {
    if (page_offset % 64 != 0 || page_offset >= kPage)
      throw std::invalid_argument("AlignedBuffer: page offset");
    const std::size_t bytes = std::max<std::size_t>(size_, 1) * sizeof(T) + page_offset;
    const std::size_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    block_ = std::unique_ptr<void, Release>(map_huge_page_block(mapped), Release{mapped});
    data_ = reinterpret_cast<T*>(static_cast<char*>(block_.get()) + page_offset);
    zero(threads);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  /// free() for the allocator's blocks, munmap for a mapping of `mapped` bytes.
  struct Release {
    std::size_t mapped = 0;
    void operator()(void* p) const {
      if (mapped > 0)
        unmap_block(p, mapped);
      else
        std::free(p);
    }
  };

  void zero(int threads) {
    T* p = data_;
    const auto n = static_cast<std::ptrdiff_t>(size_);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = T(0);
  }

  std::unique_ptr<void, Release> block_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Where operand `k` of a case (A = 0, B = 1, C or X = 2, ...) starts within its page: k KiB, the same
/// for every variant, so that no two operands start within a cache line of each other modulo 4 KiB
/// (common/staggered_slab.hpp does the same for the chain's arrays).
constexpr std::size_t operand_page_offset(std::size_t k) {
  return (k * 1024) % 4096;
}

}  // namespace tfbench::workloads
