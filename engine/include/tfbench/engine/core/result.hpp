#pragma once
// Result<T, E>: the value of a fallible boundary or its typed error (C++17 has no std::expected).
// Used where failure is expected and typed, not exceptional (session entry, narrowing, plans).

#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace tfbench {

template <class E>
struct Unexpected {
  E error;
};

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& error) {
  return {std::forward<E>(error)};
}

/// Thrown by Result::value() when the Result holds an error.
class BadResultAccess : public std::logic_error {
 public:
  BadResultAccess() : std::logic_error("tfbench::Result: value() called on an error") {}
};

template <class T, class E>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  template <class U = T, class = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                  !std::is_same_v<std::decay_t<U>, Result>>>
  Result(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT
  template <class G>
  Result(Unexpected<G> error) : state_(std::in_place_index<1>, std::move(error.error)) {}  // NOLINT

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return std::get<0>(state_);
  }
  const T& value() const& {
    check();
    return std::get<0>(state_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { return std::get<1>(state_); }
  const E& error() const& { return std::get<1>(state_); }
  E&& error() && { return std::get<1>(std::move(state_)); }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!has_value()) throw BadResultAccess();
  }
  std::variant<T, E> state_;
};

template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Result() = default;
  template <class G>
  Result(Unexpected<G> error) : error_(std::move(error.error)), ok_(false) {}  // NOLINT

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  void value() const {
    if (!ok_) throw BadResultAccess();
  }
  E& error() & { return error_; }
  const E& error() const& { return error_; }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace tfbench
