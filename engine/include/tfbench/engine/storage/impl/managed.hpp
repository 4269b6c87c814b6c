#pragma once
// ManagedAllocation: foreign memory released by a caller-supplied deleter, called exactly once when the
// owner is destroyed (never for a moved-from owner). The deleter must not throw.

#include <functional>
#include <utility>

namespace tfbench::impl {

class ManagedAllocation {
 public:
  ManagedAllocation() noexcept = default;
  ManagedAllocation(void* data, std::function<void(void*)> release) noexcept
      : data_(data), release_(std::move(release)), armed_(static_cast<bool>(release_)) {}
  ManagedAllocation(ManagedAllocation&& other) noexcept
      : data_(other.data_), release_(std::move(other.release_)), armed_(other.armed_) {
    other.disarm();
  }
  ManagedAllocation& operator=(ManagedAllocation&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = other.data_;
      release_ = std::move(other.release_);
      armed_ = other.armed_;
      other.disarm();
    }
    return *this;
  }
  ManagedAllocation(const ManagedAllocation&) = delete;
  ManagedAllocation& operator=(const ManagedAllocation&) = delete;
  ~ManagedAllocation() { reset(); }

  void* data() const noexcept { return data_; }
  void reset() noexcept {
    if (armed_) {
      auto release = std::move(release_);
      void* data = data_;
      disarm();
      release(data);
    }
  }

 private:
  void disarm() noexcept {
    data_ = nullptr;
    release_ = nullptr;
    armed_ = false;
  }
  void* data_ = nullptr;
  std::function<void(void*)> release_;
  bool armed_ = false;
};

}  // namespace tfbench::impl
