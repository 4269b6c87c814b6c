#pragma once
// Prepared operations and the plan cache. A prepared operation keeps its validated route and
// layout data under a validity key; a change of any key part prepares again. Plans hold values only,
// never borrowed pointers into operands. The cache is bounded (LRU), owned by the backend and borrowed
// by sessions; sessions never reset it. Thread-safe: phase and outer lanes share it.

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/storage/inline_vec.hpp"

namespace tfbench {

class Session;

/// The device/domain part of a key: where the plan runs and with what budget.
struct PlanDeviceKey {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  MemoryKind memory = MemoryKind::Host;
  int device = 0;
  int threads = 1;
  bool outer_active = false;

  bool operator==(const PlanDeviceKey& o) const {
    return space == o.space && memory == o.memory && device == o.device && threads == o.threads &&
           outer_active == o.outer_active;
  }
  bool operator!=(const PlanDeviceKey& o) const { return !(*this == o); }
};

/// Validity key of a prepared operation. Shapes and strides of all operands are appended
/// rank-prefixed (add_operand), so [2,3]+[4] and [2]+[3,4] differ. They are kept inline up to 24
/// entries (e.g. three rank-7 operands): building a key for a lookup does not allocate.
struct PlanKey {
  using Values = InlineVec<std::int64_t, 24>;

  std::string operation;  // operation and its configuration (axes, scalar flags...), serialized
  std::string dtype;      // element type name, name(DType) (short: kept inline by the string)
  Values shapes;
  Values strides;
  std::uint64_t provider_generation = 0;
  PlanDeviceKey device;
  BatchPolicy batch_policy;

  /// Appends one operand's shape and strides (strides may be empty for a compact operand).
  PlanKey& add_operand(const std::int64_t* shape, const std::int64_t* strides_or_null, int rank);
  PlanKey& add_operand(std::initializer_list<std::int64_t> shape,
                       std::initializer_list<std::int64_t> strides);

  bool operator==(const PlanKey& o) const;
  bool operator!=(const PlanKey& o) const { return !(*this == o); }
  std::size_t hash() const;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& key) const { return key.hash(); }
};

/// A key with the session's parts filled in: provider generation, device/context and the effective
/// batch policy (per_operation > scoped > backend default).
PlanKey make_plan_key(const Session& session, std::string operation, std::string dtype,
                      const std::optional<BatchPolicy>& per_operation = std::nullopt);
/// The same with the dtype given as a DType.
PlanKey make_plan_key(const Session& session, std::string operation, DType dtype,
                      const std::optional<BatchPolicy>& per_operation = std::nullopt);

/// Base of every prepared operation kept in a PlanCache (derive, hold values only).
struct PreparedOp {
  virtual ~PreparedOp() = default;
};

struct PlanCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;
  std::size_t size = 0;
  std::size_t capacity = 0;
};

class PlanCache {
 public:
  static constexpr std::size_t kDefaultCapacity = 256;

  explicit PlanCache(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  /// The cached plan for `key`, or prepare()'s plan, inserted (evicting the least recently used).
  /// prepare() returns P (derived from PreparedOp) or Result<P, E>; an error is returned, not cached.
  /// prepare() runs without the cache lock held, so it may itself use the cache; if two threads
  /// prepare the same key at once, the first inserted plan wins and both get it.
  template <class P, class F>
  auto get_or_prepare(const PlanKey& key, F&& prepare);

  /// Looks a plan up without preparing (counts a hit or a miss).
  template <class P>
  std::shared_ptr<const P> find(const PlanKey& key);

  /// A capacity of 0 disables caching (every get_or_prepare prepares). Evicts down to the capacity.
  void configure(std::size_t capacity);
  void clear();
  PlanCacheStats stats() const;

 private:
  using Entry = std::pair<PlanKey, std::pair<std::type_index, std::shared_ptr<const PreparedOp>>>;
  std::shared_ptr<const PreparedOp> lookup(const PlanKey& key, std::type_index type);
  std::shared_ptr<const PreparedOp> insert(const PlanKey& key, std::type_index type,
                                           std::shared_ptr<const PreparedOp> plan);
  void evict_to(std::size_t capacity);

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<PlanKey, std::list<Entry>::iterator, PlanKeyHash> index_;
  std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

namespace impl {
template <class T>
struct IsResult : std::false_type {};
template <class T, class E>
struct IsResult<Result<T, E>> : std::true_type {};
}  // namespace impl

template <class P>
std::shared_ptr<const P> PlanCache::find(const PlanKey& key) {
  static_assert(std::is_base_of<PreparedOp, P>::value, "plans derive from tfbench::PreparedOp");
  return std::static_pointer_cast<const P>(lookup(key, typeid(P)));
}

template <class P, class F>
auto PlanCache::get_or_prepare(const PlanKey& key, F&& prepare) {
  static_assert(std::is_base_of<PreparedOp, P>::value, "plans derive from tfbench::PreparedOp");
  using Made = std::decay_t<decltype(std::forward<F>(prepare)())>;
  if constexpr (impl::IsResult<Made>::value) {
    using E = typename Made::error_type;
    using Out = Result<std::shared_ptr<const P>, E>;
    if (auto hit = lookup(key, typeid(P))) return Out(std::static_pointer_cast<const P>(hit));
    Made made = std::forward<F>(prepare)();
    if (!made) return Out(unexpected(std::move(made).error()));
    auto plan = std::make_shared<const P>(std::move(made).value());
    return Out(std::static_pointer_cast<const P>(insert(key, typeid(P), std::move(plan))));
  } else {
    static_assert(std::is_same<Made, P>::value, "prepare() returns P or Result<P, E>");
    if (auto hit = lookup(key, typeid(P))) return std::static_pointer_cast<const P>(hit);
    auto plan = std::make_shared<const P>(std::forward<F>(prepare)());
    return std::static_pointer_cast<const P>(insert(key, typeid(P), std::move(plan)));
  }
}

}  // namespace tfbench
