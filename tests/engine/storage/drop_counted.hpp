#pragma once
// DropCounted: a non-arithmetic element type with a non-trivial destructor and no default constructor.
// Every live object's address is registered, so a test can assert that each element was destroyed
// exactly once (no leak, no double destruction).

#include <cstdint>
#include <set>

namespace tfbench::testing {

class DropCounted {
 public:
  explicit DropCounted(int value) : value_(value) { enter(); }
  DropCounted(const DropCounted& other) : value_(other.value_) { enter(); }
  DropCounted& operator=(const DropCounted& other) {
    value_ = other.value_;
    return *this;
  }
  ~DropCounted() {
    if (live().erase(this) == 0) ++bad_destructions();
    ++destructions();
  }

  int value() const { return value_; }
  bool operator==(int v) const { return value_ == v; }

  static std::set<const DropCounted*>& live() {
    static std::set<const DropCounted*> objects;
    return objects;
  }
  static std::int64_t& constructions() {
    static std::int64_t n = 0;
    return n;
  }
  static std::int64_t& destructions() {
    static std::int64_t n = 0;
    return n;
  }
  /// Destructions of objects that were not alive (double destruction or garbage).
  static std::int64_t& bad_destructions() {
    static std::int64_t n = 0;
    return n;
  }

 private:
  void enter() {
    live().insert(this);
    ++constructions();
  }
  int value_;
};

}  // namespace tfbench::testing
