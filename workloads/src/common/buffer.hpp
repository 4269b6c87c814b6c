#pragma once
// Host buffers of the peers: 64-byte aligned, first touched by the threads that will use them.

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace tfbench::workloads {

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  /// `count` elements, zero-filled by `threads` OpenMP threads (static schedule: first touch).
  explicit AlignedBuffer(std::size_t count, int threads = 1) : size_(count) {
    const std::size_t bytes = ((std::max<std::size_t>(count, 1) * sizeof(T) + 63) / 64) * 64;
    data_.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
    if (!data_) throw std::bad_alloc();
    T* p = data_.get();
    const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = T(0);
  }

  T* data() {
    return data_.get();
  }
  const T* data() const {
    return data_.get();
  }
  std::size_t size() const {
    return size_;
  }
  T& operator[](std::size_t i) {
    return data_.get()[i];
  }
  const T& operator[](std::size_t i) const {
    return data_.get()[i];
  }

  /// Gives up ownership: the caller frees the elements with std::free (an engine owner adopts them
  /// through Tensor::from_managed, so engine variants read the same aligned memory as the peers).
  T* release() {
    size_ = 0;
    return data_.release();
  }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace tfbench::workloads
