#pragma once
// Index (signed element counts, offsets and strides) and Span, a borrowed contiguous range (C++17
// has no std::span). Spans never own: they borrow shape/stride metadata and host element ranges.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace tfbench {

/// Element counts, extents, strides (in elements, signed) and offsets.
using Index = std::int64_t;

template <class T>
class Span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  /// Borrows any contiguous container with data() and size() (std::vector, std::array, InlineVec).
  template <class C,
            class = std::enable_if_t<std::is_convertible<decltype(std::declval<C&>().data()), T*>::value &&
                                     !std::is_same<std::decay_t<C>, Span>::value>>
  constexpr Span(C& container) noexcept  // NOLINT(google-explicit-constructor)
      : data_(container.data()), size_(static_cast<std::size_t>(container.size())) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // intended: a parameter borrows its argument list
#endif
  /// Borrows a braced list for the duration of the full expression (function arguments).
  template <class U = T, class = std::enable_if_t<std::is_const<U>::value>>
  constexpr Span(std::initializer_list<value_type> list) noexcept  // NOLINT(google-explicit-constructor)
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  /// Span<T> converts to Span<const T>.
  template <class U, class = std::enable_if_t<std::is_same<const U, T>::value && !std::is_same<U, T>::value>>
  constexpr Span(Span<U> other) noexcept  // NOLINT(google-explicit-constructor)
      : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const noexcept {
    return data_;
  }
  constexpr std::size_t size() const noexcept {
    return size_;
  }
  constexpr bool empty() const noexcept {
    return size_ == 0;
  }
  constexpr T& operator[](std::size_t i) const noexcept {
    return data_[i];
  }
  constexpr T* begin() const noexcept {
    return data_;
  }
  constexpr T* end() const noexcept {
    return data_ + size_;
  }
  constexpr T& front() const noexcept {
    return data_[0];
  }
  constexpr T& back() const noexcept {
    return data_[size_ - 1];
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Element-wise equality of two index ranges.
template <class A, class B>
bool equal_extents(Span<A> a, Span<B> b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace tfbench
