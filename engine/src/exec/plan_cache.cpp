// Plan keys and the bounded LRU plan cache: a change of any key part prepares again.

#include "tfbench/engine/exec/plan_cache.hpp"

#include <cstring>
#include <functional>

#include "../core/hash_mix.hpp"
#include "tfbench/engine/exec/session.hpp"

namespace tfbench {

namespace {
void mix(std::size_t& seed, std::size_t value) {
  seed = impl::hash_mix(seed, value);
}
std::size_t hash_double(double v) {
  if (v == 0) v = 0;  // +0 and -0 compare equal, so they hash equal
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return std::hash<std::uint64_t>()(bits);
}
}  // namespace

PlanKey& PlanKey::add_operand(const std::int64_t* shape, const std::int64_t* strides_or_null, int rank) {
  shapes.push_back(rank);
  strides.push_back(strides_or_null ? rank : -1);  // -1: compact operand, no strides given
  for (int i = 0; i < rank; ++i) {
    shapes.push_back(shape[i]);
    if (strides_or_null) strides.push_back(strides_or_null[i]);
  }
  return *this;
}

PlanKey& PlanKey::add_operand(std::initializer_list<std::int64_t> shape,
                              std::initializer_list<std::int64_t> strides) {
  const bool with_strides = strides.size() != 0;
  if (with_strides && strides.size() != shape.size()) {
    throw std::invalid_argument("PlanKey::add_operand: " + std::to_string(strides.size()) +
                                " strides for rank " + std::to_string(shape.size()));
  }
  return add_operand(shape.begin(), with_strides ? strides.begin() : nullptr, static_cast<int>(shape.size()));
}

bool PlanKey::operator==(const PlanKey& o) const {
  return operation == o.operation && dtype == o.dtype && shapes == o.shapes && strides == o.strides &&
         provider_generation == o.provider_generation && device == o.device && batch_policy == o.batch_policy;
}

std::size_t PlanKey::hash() const {
  std::size_t seed = std::hash<std::string>()(operation);
  mix(seed, std::hash<std::string>()(dtype));
  for (auto v : shapes) mix(seed, std::hash<std::int64_t>()(v));
  mix(seed, 0x5eed);
  for (auto v : strides) mix(seed, std::hash<std::int64_t>()(v));
  mix(seed, std::hash<std::uint64_t>()(provider_generation));
  mix(seed, static_cast<std::size_t>(device.space));
  mix(seed, static_cast<std::size_t>(device.memory));
  mix(seed, static_cast<std::size_t>(device.device));
  mix(seed, static_cast<std::size_t>(device.threads));
  mix(seed, device.outer_active ? 1 : 0);
  const auto& t = batch_policy.thresholds;
  mix(seed, static_cast<std::size_t>(batch_policy.strategy));
  mix(seed, static_cast<std::size_t>(t.vendor_batch_max_item_dim));
  mix(seed, static_cast<std::size_t>(t.outer_min_items));
  mix(seed, static_cast<std::size_t>(t.outer_min_items_per_lane));
  mix(seed, t.lane_item_overhead_ns ? hash_double(*t.lane_item_overhead_ns) : 0x5eedu);
  mix(seed, hash_double(t.lane_muladds_per_ns));
  mix(seed, hash_double(t.lane_min_work_ns));
  mix(seed, t.direct_contraction_muladds ? hash_double(*t.direct_contraction_muladds) : 0xd1ec7u);
  mix(seed, t.check_fan_out ? 1 : 0);
  mix(seed, std::hash<const void*>()(batch_policy.tuning.get()));
  return seed;
}

PlanKey make_plan_key(const Session& session, std::string operation, DType dtype,
                      const std::optional<BatchPolicy>& per_operation) {
  return make_plan_key(session, std::move(operation), std::string(name(dtype)), per_operation);
}

PlanKey make_plan_key(const Session& session, std::string operation, std::string dtype,
                      const std::optional<BatchPolicy>& per_operation) {
  PlanKey key;
  key.operation = std::move(operation);
  key.dtype = std::move(dtype);
  key.provider_generation = session.providers().generation();
  const ExecutionContext& c = session.context();
  key.device = PlanDeviceKey{c.space, c.memory, c.device, c.threads, c.outer_active};
  key.batch_policy = effective_batch_policy(session, per_operation);
  return key;
}

std::shared_ptr<const PreparedOp> PlanCache::lookup(const PlanKey& key, std::type_index type) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = index_.find(key);
  if (found == index_.end() || found->second->second.first != type) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->second.second;
}

std::shared_ptr<const PreparedOp> PlanCache::insert(const PlanKey& key, std::type_index type,
                                                    std::shared_ptr<const PreparedOp> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capacity_ == 0) return plan;
  auto found = index_.find(key);
  if (found != index_.end()) {
    if (found->second->second.first == type) {  // another thread prepared it first: share that plan
      lru_.splice(lru_.begin(), lru_, found->second);
      return found->second->second.second;
    }
    lru_.erase(found->second);
    index_.erase(found);
  }
  lru_.emplace_front(key, std::make_pair(type, plan));
  index_.emplace(lru_.front().first, lru_.begin());
  evict_to(capacity_);
  return plan;
}

void PlanCache::evict_to(std::size_t capacity) {
  while (lru_.size() > capacity) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
    ++evictions_;
  }
}

void PlanCache::configure(std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  capacity_ = capacity;
  evict_to(capacity_);
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  index_.clear();
  lru_.clear();
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return PlanCacheStats{hits_, misses_, evictions_, lru_.size(), capacity_};
}

}  // namespace tfbench
