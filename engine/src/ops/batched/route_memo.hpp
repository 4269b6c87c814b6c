#pragma once
// The route of a batched operation, remembered per thread for the next call with the same inputs.
// Selecting it (policy precedence, tuning lookup, provider preference and applicability, the
// resolver) cost about 95 ns of a 0.30 us call of one 2 x 2 item on the Zen 2 VM (2026-12-05), as
// much as the kernel of 100 such items; building and comparing the key on every call gives about 45
// of them back (probe: 0.30 -> 0.25 us a call, 512 items 0.75 -> 0.69-0.72 us).

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "../../exec/effective_policy.hpp"
#include "facade_support.hpp"
#include "tfbench/engine/ops/batched/auto_tuning.hpp"

namespace tfbench::impl::batched {

/// Every input select_route reads, as 64-bit words (floating-point values by their bits): the
/// session's context, its provider set (a generation no other set in the process has), the
/// effective policy (strategy, thresholds, the tuning's serial), the options, the family and each
/// operand's geometry and the scalars, from which the problem, the streaming test, the working set
/// and every provider's applicability follow. Data addresses are not in it: no selection reads them
/// (streams_c_on, which does, runs after it on every call). Two keys are equal only if every input is.
class RouteKey {
 public:
  /// The key of an operation on three operands (A, B and the destination), scalars added after.
  template <class A, class B, class C>
  RouteKey(const Session& session, const ops::BatchedOptions& options, ops::BatchedFamily family,
           const ItemBatch<A>& a, const ItemBatch<B>& b, const ItemBatch<C>& c)
      : RouteKey(session, options, family) {
    add(a);
    add(b);
    add(c);
  }

  template <class T>
  void add_scalar(const T& value) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 16, "a scalar of at most two words");
    std::array<std::int64_t, 2> bits{};
    std::memcpy(bits.data(), &value, sizeof(T));
    push(bits[0], bits[1]);
  }

  // Copies the words written only (the others are indeterminate: never read, never copied).
  RouteKey(const RouteKey& o) noexcept : size_(o.size_) { copy_words(o); }
  RouteKey& operator=(const RouteKey& o) noexcept {
    if (this != &o) {
      size_ = o.size_;
      copy_words(o);
    }
    return *this;
  }

  bool operator==(const RouteKey& o) const {
    // The words written, not all 48: loaded as vectors right after their 8-byte stores, those did
    // not forward (0.222 us a call with memcmp, 0.233-0.246 with a vectorized loop over all 48).
    return size_ == o.size_ && std::memcmp(words_.data(), o.words_.data(), size_ * sizeof(std::int64_t)) == 0;
  }

 private:
  RouteKey(const Session& session, const ops::BatchedOptions& options, ops::BatchedFamily family) {
    const ExecutionContext& c = session.context();
    push(static_cast<std::int64_t>(c.space), c.threads, c.outer_active, c.lane, c.lanes,
         static_cast<std::int64_t>(c.memory), c.device);
    push(static_cast<std::int64_t>(session.providers().generation()));
    const BatchPolicy& policy = effective_policy_ref(session, options.policy);
    const BatchThresholds& t = policy.thresholds;
    push(static_cast<std::int64_t>(policy.strategy), t.vendor_batch_max_item_dim, t.outer_min_items,
         t.outer_min_items_per_lane);
    push_optional(t.lane_item_overhead_ns);
    push_bits(t.lane_muladds_per_ns);
    push_bits(t.lane_min_work_ns);
    push_optional(t.direct_contraction_muladds);
    push(t.check_fan_out);
    push(static_cast<std::int64_t>(policy.tuning ? policy.tuning->serial() : 0));
    push(options.provider ? 1 + static_cast<std::int64_t>(*options.provider) : 0,
         static_cast<std::int64_t>(options.pivoting), options.prefetch ? 1 + *options.prefetch : 0,
         options.streaming_stores ? 1 + *options.streaming_stores : 0,
         options.narrow_vectors ? 1 + *options.narrow_vectors : 0, static_cast<std::int64_t>(family));
  }

  void copy_words(const RouteKey& o) {
    std::memcpy(words_.data(), o.words_.data(), size_ * sizeof(std::int64_t));
  }
  template <class T>
  void add(const ItemBatch<T>& x) {
    push(x.rows, x.cols, x.count, x.rs, x.cs, x.bs);
  }
  template <class... W>
  void push(W... values) {
    ((words_[size_++] = static_cast<std::int64_t>(values)), ...);
  }
  void push_bits(double value) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    push(bits);
  }
  void push_optional(const std::optional<double>& value) {
    push(value ? 1 : 0);
    push_bits(value.value_or(0.0));
  }

  // 7 context + 1 provider set + 4 strategy and thresholds + 6 thresholds' doubles and optionals
  // + 1 check_fan_out + 1 tuning + 6 options = 26, + 3 operands x 6 + 2 scalars x 2 = 48 at most. Words past
  // size_ are never read, so not zeroed (a 384-byte memset a call). size_ is not of the words' type, so that
  // the compiler keeps it in a register across their stores (a std::size_t may alias an std::int64_t: every
  // push reloaded and stored it, one store-to-load chain through all of them). Together with the scalars'
  // checks out of line (facade_support.hpp): 0.246 -> 0.222 us a call of one 2 x 2 item, 0.69 -> 0.67 for 512
  // (probe, Zen 2 VM, 2026-12-06, three alternating runs).
  static constexpr std::uint32_t kWords = 48;
  std::array<std::int64_t, kWords> words_;
  std::uint32_t size_ = 0;
};

/// The route for `key` into `route`: the one this thread selected last for an operation of `Space`
/// on T of `Family` if that call's key is `key`, else select() (a Result<SelectedRoute,
/// BatchedError>), remembered when it succeeds. Empty on success, else select()'s error (an error
/// is not remembered: the next call selects again).
template <class Space, class T, ops::BatchedFamily Family, class Select>
std::optional<BatchedError> remembered_route(const RouteKey& key, SelectedRoute& route,
                                             const Select& select) {
  struct Memo {
    RouteKey key;
    SelectedRoute route;
  };
  static thread_local std::optional<Memo> memo;
  if (memo && memo->key == key) {
    route = memo->route;
    return std::nullopt;
  }
  auto selected = select();
  if (!selected) return std::move(selected.error());
  route = *selected;
  memo = Memo{key, route};
  return std::nullopt;
}

}  // namespace tfbench::impl::batched
