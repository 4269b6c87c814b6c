#pragma once
// One object per case, shared by the variants of the case alive at once (their operands), so that
// their ratios compare their code and not their allocations: two allocations of the same arrays
// differed by 2-10% in DRAM speed from process to process on the Zen 2 VM (2026-12-05).

#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tfbench::workloads {

/// The live `Value` of each case `Key`: get() returns the one a variant still holds, else makes one.
/// The registry holds weak pointers, so a case's object goes with its last variant.
template <class Value, class Key>
class LiveByCase {
 public:
  template <class Make>
  static std::shared_ptr<Value> get(const Key& key, const Make& make) {
    const std::lock_guard<std::mutex> lock(mutex());
    auto& live = objects();
    if (const auto it = live.find(key); it != live.end()) {
      if (auto object = it->second.lock()) return object;
    }
    for (auto it = live.begin(); it != live.end();)
      it = it->second.expired() ? live.erase(it) : std::next(it);
    std::shared_ptr<Value> object = make();
    live[key] = object;
    return object;
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<Key, std::weak_ptr<Value>>& objects() {
    static std::map<Key, std::weak_ptr<Value>> live;
    return live;
  }
};

/// The metric `operands_shared_by`: how many variants alive hold the case's `object` (each holds one
/// pointer to it).
template <class Value>
std::map<std::string, double> shared_by_metric(const std::shared_ptr<Value>& object) {
  return {{"operands_shared_by", static_cast<double>(object.use_count())}};
}

}  // namespace tfbench::workloads
