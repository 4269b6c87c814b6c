#pragma once
// FixedVec<T, N>: a vector with inline capacity N and no heap, for operation bookkeeping (labels,
// axes, per-axis extents) on the eager path. Exceeding the capacity is a typed error, not a spill:
// the callers bound it by the number of distinct einsum labels (52) or the kernel rank.

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <type_traits>

namespace tfbench::impl {

template <class T, std::size_t N>
class FixedVec {
  static_assert(std::is_trivially_copyable<T>::value, "FixedVec holds plain values");

 public:
  FixedVec() = default;
  FixedVec(std::initializer_list<T> values) {
    for (const T& v : values) push_back(v);
  }
  // Copies move only the live elements: plans hold many of these and are copied into caches.
  FixedVec(const FixedVec& o) : size_(o.size_) {
    for (std::size_t i = 0; i < size_; ++i) data_[i] = o.data_[i];
  }
  FixedVec& operator=(const FixedVec& o) {
    size_ = o.size_;
    for (std::size_t i = 0; i < size_; ++i) data_[i] = o.data_[i];
    return *this;
  }

  void push_back(const T& v) {
    if (size_ == N) throw std::length_error("tfbench::impl::FixedVec: capacity exceeded");
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize(std::size_t n, const T& fill = T()) {
    if (n > N) throw std::length_error("tfbench::impl::FixedVec: capacity exceeded");
    for (std::size_t i = size_; i < n; ++i) data_[i] = fill;
    size_ = n;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  static constexpr std::size_t capacity() { return N; }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }

  /// Index of the first element equal to v, or -1.
  int find(const T& v) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (data_[i] == v) return static_cast<int>(i);
    return -1;
  }
  bool contains(const T& v) const { return find(v) >= 0; }

  friend bool operator==(const FixedVec& a, const FixedVec& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a.data_[i] == b.data_[i])) return false;
    return true;
  }
  friend bool operator!=(const FixedVec& a, const FixedVec& b) { return !(a == b); }

 private:
  T data_[N];  // only [0, size_) is initialized
  std::size_t size_ = 0;
};

}  // namespace tfbench::impl
