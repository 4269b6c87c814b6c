#pragma once
// The recorded graph of eager reverse-mode AD: one Node per recorded operation, holding shared
// references to its input nodes and the values its vector-Jacobian product needs (saved values are
// shared immutable tensors, so they outlive the forward handles). Leaves accumulate gradients.
// Untracked operations create no node at all.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::ad::impl {

template <class T>
using Value = std::shared_ptr<const Tensor<T>>;

struct TapeCounters {
  std::atomic<std::uint64_t> nodes_created{0};
  std::atomic<std::int64_t> nodes_alive{0};
  std::atomic<std::uint64_t> backward_calls{0};
};
TapeCounters& tape_counters();

template <class T>
struct Node {
  Node() {
    tape_counters().nodes_created.fetch_add(1, std::memory_order_relaxed);
    tape_counters().nodes_alive.fetch_add(1, std::memory_order_relaxed);
  }
  virtual ~Node() { tape_counters().nodes_alive.fetch_sub(1, std::memory_order_relaxed); }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// Gradients of the inputs (same order as `inputs`; null where none flows) from the gradient of
  /// this node's output, computed with engine operations in session `s`.
  virtual void backward(Session& s, const Value<T>& grad, std::vector<Value<T>>& input_grads) = 0;
  virtual const char* name() const = 0;
  virtual bool is_leaf() const { return false; }

  std::vector<std::shared_ptr<Node<T>>> inputs;  // null: that input needs no gradient
};

/// A tracked leaf: the gradients of every backward call add up in `grad`.
template <class T>
struct LeafNode final : Node<T> {
  void backward(Session&, const Value<T>&, std::vector<Value<T>>&) override {}
  const char* name() const override { return "leaf"; }
  bool is_leaf() const override { return true; }
  Value<T> grad;
};

}  // namespace tfbench::ad::impl
