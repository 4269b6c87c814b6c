#pragma once
// The owned payload of a Host tensor: a plain adopted std::vector<T>, a pooled block (numeric
// element types only, returned to its pool once), or a managed allocation with a custom deleter.
// bool elements use a bool array, because std::vector<bool> has no contiguous elements.

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tfbench/engine/storage/impl/managed.hpp"
#include "tfbench/engine/storage/pool.hpp"
#include "tfbench/engine/storage/representation.hpp"
#include "tfbench/engine/storage/span.hpp"

namespace tfbench::impl {

/// The plain host container of T: std::vector<T>, or a bool array for bool.
template <class T>
struct PlainVec {
  using type = std::vector<T>;
  static type take(std::vector<T>&& v) noexcept { return std::move(v); }
};
class BoolArray {
 public:
  BoolArray() = default;
  explicit BoolArray(std::size_t n) : data_(n ? new bool[n]() : nullptr), size_(n) {}
  bool* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  std::unique_ptr<bool[]> data_;
  std::size_t size_ = 0;
};
template <>
struct PlainVec<bool> {
  using type = BoolArray;
  static type take(std::vector<bool>&& v) {
    BoolArray out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out.data()[i] = v[i];
    return out;
  }
};

/// Appends elements in order into a plain container (compaction, clone, row-major import).
template <class T>
class PlainBuilder {
 public:
  explicit PlainBuilder(std::size_t n) { out_.reserve(n); }
  void push(const T& value) { out_.push_back(value); }
  std::vector<T> finish() && { return std::move(out_); }

 private:
  std::vector<T> out_;
};
template <>
class PlainBuilder<bool> {
 public:
  explicit PlainBuilder(std::size_t n) : out_(n) {}
  void push(bool value) { out_.data()[next_++] = value; }
  BoolArray finish() && { return std::move(out_); }

 private:
  BoolArray out_;
  std::size_t next_ = 0;
};

template <class T>
class HostStorage {
 public:
  using Plain = typename PlainVec<T>::type;
  using Pooled = PooledBlock<Kokkos::HostSpace>;

  explicit HostStorage(Plain&& plain) noexcept : alloc_(std::move(plain)) {
    data_ = std::get<0>(alloc_).data();
  }
  /// The block holds count initialized, trivially destructible elements.
  explicit HostStorage(Pooled&& block) noexcept : alloc_(std::move(block)) {
    static_assert(std::is_trivially_destructible<T>::value, "pooled host storage holds trivial elements");
    data_ = static_cast<T*>(std::get<1>(alloc_).data());
  }
  explicit HostStorage(ManagedAllocation&& managed) noexcept : alloc_(std::move(managed)) {
    data_ = static_cast<T*>(std::get<2>(alloc_).data());
  }
  HostStorage(HostStorage&& other) noexcept : alloc_(std::move(other.alloc_)), data_(other.data_) {
    other.data_ = nullptr;
  }
  HostStorage& operator=(HostStorage&& other) noexcept {
    if (this != &other) {
      alloc_ = std::move(other.alloc_);
      data_ = other.data_;
      other.data_ = nullptr;
    }
    return *this;
  }

  T* data() const noexcept { return data_; }
  AllocationKind kind() const noexcept { return static_cast<AllocationKind>(alloc_.index()); }

 private:
  std::variant<Plain, Pooled, ManagedAllocation> alloc_;
  T* data_ = nullptr;
};

}  // namespace tfbench::impl
