// The reverse sweep: order the graph once (iterative depth-first post-order), then run every node's
// vector-Jacobian product from the output back, adding contributions that meet at a node, in the
// one session given. Leaves add to their accumulated gradient.

#include "tfbench/engine/ad/backward.hpp"

#include <unordered_map>
#include <utility>
#include <vector>

#include "record.hpp"

namespace tfbench::ad {
namespace impl {
namespace {

template <class T>
std::vector<Node<T>*> post_order(Node<T>* root) {
  std::vector<Node<T>*> order;
  std::unordered_map<Node<T>*, bool> seen;
  std::vector<std::pair<Node<T>*, std::size_t>> stack{{root, 0}};
  seen[root] = true;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      Node<T>* child = node->inputs[next++].get();
      if (child && !seen[child]) {
        seen[child] = true;
        stack.emplace_back(child, 0);
      }
      continue;
    }
    order.push_back(node);
    stack.pop_back();
  }
  return order;
}

template <class T>
void accumulate(Session& s, Value<T>& slot, const Value<T>& contribution) {
  slot = slot ? share(ops::add(s, *slot, *contribution)) : contribution;
}

template <class T>
void sweep(Session& s, const Var<T>& y, Value<T> seed) {
  if (!y.tracked())
    throw ops::OpError(
        ops::OpErrorCode::Unsupported, "ad::backward",
        "the value is not tracked (no tracked leaf reaches it, or it was computed under no_grad)");
  tape_counters().backward_calls.fetch_add(1, std::memory_order_relaxed);
  const NoGradGuard no_recording;  // VJPs are plain engine operations
  const std::vector<Node<T>*> order = post_order(y.node().get());
  std::unordered_map<Node<T>*, std::size_t> index;
  for (std::size_t i = 0; i < order.size(); ++i) index[order[i]] = i;
  std::vector<Value<T>> grads(order.size());
  grads.back() = std::move(seed);
  std::vector<Value<T>> input_grads;
  for (std::size_t i = order.size(); i-- > 0;) {
    Node<T>* node = order[i];
    Value<T> g = std::move(grads[i]);
    if (!g) continue;
    if (node->is_leaf()) {
      accumulate(s, static_cast<LeafNode<T>*>(node)->grad, g);
      continue;
    }
    input_grads.assign(node->inputs.size(), nullptr);
    node->backward(s, g, input_grads);
    for (std::size_t k = 0; k < node->inputs.size(); ++k) {
      if (node->inputs[k] && input_grads[k])
        accumulate(s, grads[index[node->inputs[k].get()]], input_grads[k]);
    }
  }
}

}  // namespace
}  // namespace impl

template <class T>
void backward(Session& s, const Var<T>& y) {
  if (y.defined() && y.value().numel() != 1)
    throw ops::OpError(ops::OpErrorCode::ShapeMismatch, "ad::backward",
                       "seeding with ones needs a one-element value; pass a seed of its shape");
  impl::sweep(s, y, impl::share(ops::full<T>(s, y.shape(), 1)));
}

template <class T>
void backward(Session& s, const Var<T>& y, const Tensor<T>& seed) {
  tfbench::impl::check_same_shape("ad::backward", seed.shape(), y.shape(),
                                  "the seed's shape differs from y's");
  impl::sweep(s, y, impl::share(ops::copy(s, seed)));
}

template void backward<float>(Session&, const Var<float>&);
template void backward<double>(Session&, const Var<double>&);
template void backward<float>(Session&, const Var<float>&, const Tensor<float>&);
template void backward<double>(Session&, const Var<double>&, const Tensor<double>&);

}  // namespace tfbench::ad
