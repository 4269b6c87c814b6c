#pragma once
// The order a host thread runs a batch's items in: ascending in one call, descending in the next.
//
// Why: a batch run again on the same operands (a benchmark's repetitions, an iterative solver, a
// time step) whose working set is a little over a cache evicts itself under LRU: a cyclic pass over
// 13 lines of one set in 12 ways misses on every line of it. A pass the other way first touches the
// lines the last pass touched last, which are still there, and misses only on what did not fit.
// Items are independent, so the order changes no bit of any result. Which kernels and batches
// alternate (not those that stream from memory): FixedGemmChunk::sweeps_both_ways; measured:
// docs/ops-batched.md, "Sweep order".

#include <cstdint>
#include <type_traits>

namespace tfbench::impl::batched {

/// Whether the calling thread's next sweep runs descending: every other one does (host code only).
inline bool next_sweep_backward() {
  static thread_local bool backward = true;
  backward = !backward;
  return backward;
}

/// body(i) for each i in [begin, end), descending when `backward`. A body that also takes the
/// direction gets it as a constant, body(i, std::true_type) descending, to walk within an item too.
template <class Body>
inline void for_items(const std::int64_t begin, const std::int64_t end, const bool backward,
                      const Body& body) {
  const auto item = [&](const std::int64_t i, auto descending) {
    if constexpr (std::is_invocable_v<const Body&, std::int64_t, decltype(descending)>) {
      body(i, descending);
    } else {
      body(i);
    }
  };
  if (backward) {
    for (std::int64_t i = end; i-- > begin;) item(i, std::true_type{});
  } else {
    for (std::int64_t i = begin; i < end; ++i) item(i, std::false_type{});
  }
}

}  // namespace tfbench::impl::batched
