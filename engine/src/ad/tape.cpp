#include "tfbench/engine/ad/var.hpp"

namespace tfbench::ad {
namespace impl {

TapeCounters& tape_counters() {
  static TapeCounters counters;
  return counters;
}

}  // namespace impl

TapeStats tape_stats() {
  auto& c = impl::tape_counters();
  return {c.nodes_created.load(std::memory_order_relaxed), c.nodes_alive.load(std::memory_order_relaxed),
          c.backward_calls.load(std::memory_order_relaxed)};
}

}  // namespace tfbench::ad
