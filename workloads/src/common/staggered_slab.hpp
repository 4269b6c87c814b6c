#pragma once
// Host operands of one instance in one block, each 64-byte aligned at its own 1 KiB offset within a
// 4 KiB page (array k at k KiB, modulo 4 KiB). A small streaming kernel runs up to 2x slower when
// its output trails an input by less than a cache line modulo 4 KiB (loads falsely waiting on
// earlier stores, lines split by the misalignment): plain heap blocks land there or not by the
// heap's history, differently for each variant and each process. Here every variant of a case gets
// the same, well-separated layout, so the variants' ratio compares their code, not their luck.

#include "tfbench/engine/storage/storage.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace tfbench::workloads {

template <class T>
class StaggeredSlab {
 public:
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kStagger = 1024;

  /// `arrays` zeroed arrays of `count` elements.
  StaggeredSlab(std::size_t arrays, std::size_t count)
      : count_(count), stride_(whole_pages(count * sizeof(T)) + kStagger) {
    // A whole number of pages: aligned_alloc's size must be a multiple of its alignment (C11 7.22.3.1,
    // which C++17 takes), and the sanitizers' allocators refuse any other (ThreadSanitizer aborted the
    // workloads tests on 10 KiB); glibc's accepted it.
    const std::size_t bytes = whole_pages(std::max<std::size_t>(arrays * stride_, kPage));
    block_.reset(std::aligned_alloc(kPage, bytes), std::free);
    if (!block_) throw std::bad_alloc();
    std::memset(block_.get(), 0, bytes);
  }

  /// `bytes` rounded up to whole pages.
  static constexpr std::size_t whole_pages(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

  T* data(std::size_t k) const {
    return reinterpret_cast<T*>(static_cast<char*>(block_.get()) + k * stride_);
  }

  /// Array k as a rank-1 owner; the block lives as long as this slab or any of its owners.
  Tensor<T, DynRank, Host> tensor(std::size_t k) const {
    return Tensor<T, DynRank, Host>::from_managed({static_cast<Index>(count_)}, data(k),
                                                  [hold = block_](T*, Index) {});
  }

 private:
  std::size_t count_, stride_;
  std::shared_ptr<void> block_;
};

}  // namespace tfbench::workloads
