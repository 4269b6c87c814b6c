#pragma once
// Var<T>: a tensor value for eager reverse-mode AD (T = float or double). A Var is tracked when it
// is a leaf that wants gradients or the result of a recorded operation; untracked Vars (constants,
// results under no_grad or of untracked inputs) carry no tape state. Values are shared immutable
// tensors: copying a Var copies a handle, and the values a backward pass needs stay alive after
// every forward handle is gone.
//
//   auto x = ad::Var<double>::leaf(std::move(tensor));   // gradients accumulate in x.grad()
//   auto y = ad::sum_all(s, ad::einsum(s, "ij,jk->ik", x, w));
//   ad::backward(s, y);                                   // x.grad(): d y / d x

#include <memory>
#include <utility>

#include "tfbench/engine/ad/impl/node.hpp"
#include "tfbench/engine/ad/mode.hpp"

namespace tfbench::ad {

struct TapeStats {
  std::uint64_t nodes_created = 0;  // recorded operations and tracked leaves, ever
  std::int64_t nodes_alive = 0;     // nodes still reachable from some Var
  std::uint64_t backward_calls = 0;
};
TapeStats tape_stats();

template <class T>
class Var {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "ad::Var supports float and double");

 public:
  Var() = default;
  /// An untracked value.
  explicit Var(Tensor<T> value) : value_(std::make_shared<const Tensor<T>>(std::move(value))) {}
  static Var constant(Tensor<T> value) { return Var(std::move(value)); }
  /// A tracked leaf: backward() accumulates d(output)/d(leaf) into grad().
  static Var leaf(Tensor<T> value) {
    Var v(std::move(value));
    v.node_ = std::make_shared<impl::LeafNode<T>>();
    return v;
  }

  bool defined() const { return value_ != nullptr; }
  const Tensor<T>& value() const { return *value_; }
  TensorView<T> view() const { return value_->view(); }
  Span<const Index> shape() const { return value_->shape(); }
  bool tracked() const { return node_ != nullptr; }
  bool is_leaf() const { return node_ && node_->is_leaf(); }

  /// A leaf's accumulated gradient, or null (not a leaf, or no backward reached it yet).
  const Tensor<T>* grad() const {
    if (!is_leaf()) return nullptr;
    return static_cast<impl::LeafNode<T>*>(node_.get())->grad.get();
  }
  /// Forgets a leaf's accumulated gradient.
  void zero_grad() {
    if (is_leaf()) static_cast<impl::LeafNode<T>*>(node_.get())->grad.reset();
  }

  // ---- internal (recording)
  static Var make(impl::Value<T> value, std::shared_ptr<impl::Node<T>> node) {
    Var v;
    v.value_ = std::move(value);
    v.node_ = std::move(node);
    return v;
  }
  const impl::Value<T>& shared_value() const { return value_; }
  const std::shared_ptr<impl::Node<T>>& node() const { return node_; }

 private:
  impl::Value<T> value_;
  std::shared_ptr<impl::Node<T>> node_;
};

}  // namespace tfbench::ad
