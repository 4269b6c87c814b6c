// The process's installed AutoTuning (tfbench/workloads/tuning.hpp), read by make_backend.

#include <mutex>

#include "tfbench/workloads/tuning.hpp"

namespace tfbench::workloads {
namespace {
std::mutex& tuning_mutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<const ops::AutoTuning>& tuning_slot() {
  static std::shared_ptr<const ops::AutoTuning> slot;
  return slot;
}
}  // namespace

void install_auto_tuning(std::shared_ptr<const ops::AutoTuning> tuning) {
  std::lock_guard<std::mutex> lock(tuning_mutex());
  tuning_slot() = std::move(tuning);
}

std::shared_ptr<const ops::AutoTuning> installed_auto_tuning() {
  std::lock_guard<std::mutex> lock(tuning_mutex());
  return tuning_slot();
}

}  // namespace tfbench::workloads
