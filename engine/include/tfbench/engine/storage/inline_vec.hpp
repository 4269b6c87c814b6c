#pragma once
// InlineVec<T, N>: a small vector of trivially copyable values stored inline up to N elements and
// spilled to the heap beyond. Shapes and strides of dynamic rank use InlineVec<Index, 8>, so views of
// rank <= 8 never allocate metadata; larger ranks spill and still work.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>

#include "tfbench/engine/storage/span.hpp"

namespace tfbench {

template <class T, std::size_t N>
class InlineVec {
  static_assert(std::is_trivially_copyable<T>::value, "InlineVec holds trivially copyable metadata");
  static_assert(N > 0, "InlineVec needs an inline capacity");

 public:
  using value_type = T;
  using size_type = std::size_t;
  static constexpr std::size_t inline_capacity = N;

  InlineVec() noexcept = default;
  explicit InlineVec(std::size_t count, const T& value = T{}) { assign_fill(count, value); }
  InlineVec(std::initializer_list<T> list) { assign(list.begin(), list.end()); }
  InlineVec(const T* first, const T* last) { assign(first, last); }
  explicit InlineVec(Span<const T> values) { assign(values.begin(), values.end()); }
  /// From any contiguous container of T (std::vector<Index>, std::array<Index, N>).
  template <
      class C,
      class = std::enable_if_t<
          std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const C&>().data())>>,
                       T>::value &&
          !std::is_same<std::decay_t<C>, InlineVec>::value &&
          !std::is_same<std::decay_t<C>, Span<const T>>::value>>
  InlineVec(const C& values)  // NOLINT(google-explicit-constructor): shapes convert from containers
  {
    assign(values.data(), values.data() + values.size());
  }

  InlineVec(const InlineVec& other) {
    if (other.heap_)
      assign(other.begin(), other.end());
    else
      copy_inline(other);
  }
  InlineVec(InlineVec&& other) noexcept { steal(other); }
  InlineVec& operator=(const InlineVec& other) {
    if (this == &other) return *this;
    if (other.heap_) {
      assign(other.begin(), other.end());
    } else {
      release();
      copy_inline(other);
    }
    return *this;
  }
  InlineVec& operator=(InlineVec&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~InlineVec() = default;  // the unique_ptr frees a spilled buffer

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return heap_ ? capacity_ : N; }
  /// False once the contents have spilled to the heap.
  bool is_inline() const noexcept { return heap_ == nullptr; }

  T* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const T* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  T& operator[](std::size_t i) noexcept {
    assert(i < size_);
    return data()[i];
  }
  const T& operator[](std::size_t i) const noexcept {
    assert(i < size_);
    return data()[i];
  }
  T& back() noexcept { return data()[size_ - 1]; }
  const T& back() const noexcept { return data()[size_ - 1]; }

  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t count) {
    if (count > capacity()) grow(count);
  }
  void push_back(const T& value) {
    if (size_ == capacity()) grow(std::max<std::size_t>(2 * capacity(), size_ + 1));
    data()[size_++] = value;
  }
  void pop_back() noexcept {
    assert(size_ > 0);
    --size_;
  }
  void resize(std::size_t count, const T& value = T{}) {
    reserve(count);
    for (std::size_t i = size_; i < count; ++i) data()[i] = value;
    size_ = count;
  }
  void assign(const T* first, const T* last) {
    const auto count = static_cast<std::size_t>(last - first);
    size_ = 0;
    reserve(count);
    if (count > 0) std::memmove(data(), first, count * sizeof(T));
    size_ = count;
  }

  operator Span<const T>() const noexcept { return {data(), size_}; }  // NOLINT
  operator Span<T>() noexcept { return {data(), size_}; }              // NOLINT

  friend bool operator==(const InlineVec& a, const InlineVec& b) noexcept {
    return equal_extents(Span<const T>(a), Span<const T>(b));
  }
  friend bool operator!=(const InlineVec& a, const InlineVec& b) noexcept { return !(a == b); }

 private:
  // The inline buffer is always fully initialized, so whole-buffer copies are well defined.
  void copy_inline(const InlineVec& other) noexcept {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    size_ = other.size_;
  }
  void assign_fill(std::size_t count, const T& value) {
    reserve(count);
    std::fill(data(), data() + count, value);
    size_ = count;
  }
  void grow(std::size_t count) {
    std::unique_ptr<T[]> bigger(new T[count]);
    if (size_ > 0) std::memcpy(bigger.get(), data(), size_ * sizeof(T));
    heap_ = std::move(bigger);
    capacity_ = count;
  }
  void release() noexcept {
    heap_.reset();
    capacity_ = N;
    size_ = 0;
  }
  void steal(InlineVec& other) noexcept {
    size_ = other.size_;
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
    } else {
      std::memcpy(inline_, other.inline_, sizeof(inline_));  // fixed size: inlined, no libc call
    }
    other.release();
  }

  std::size_t size_ = 0;
  std::size_t capacity_ = N;
  std::unique_ptr<T[]> heap_;
  T inline_[N]{};
};

}  // namespace tfbench
