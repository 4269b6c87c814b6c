#pragma once
// Recording helpers of the AD operations: whether to record, sharing values, building result Vars.

#include <initializer_list>
#include <memory>
#include <utility>

#include "tfbench/engine/ad/var.hpp"
#include "tfbench/engine/ops/ops.hpp"

namespace tfbench::ad::impl {

/// True when grad_enabled() on this thread and any input is tracked.
template <class T>
bool should_record(std::initializer_list<const Var<T>*> inputs) {
  if (!grad_enabled()) return false;
  for (const Var<T>* v : inputs)
    if (v->tracked()) return true;
  return false;
}

template <class T>
Value<T> share(Tensor<T>&& t) {
  return std::make_shared<const Tensor<T>>(std::move(t));
}

/// The result Var: tracked with `node` (its inputs set from `inputs`) or untracked when node is null.
template <class T, class N>
Var<T> result(Tensor<T>&& value, std::shared_ptr<N> node, std::initializer_list<const Var<T>*> inputs) {
  if (!node) return Var<T>(std::move(value));
  for (const Var<T>* v : inputs) node->inputs.push_back(v->node());
  return Var<T>::make(share(std::move(value)), std::move(node));
}

}  // namespace tfbench::ad::impl
