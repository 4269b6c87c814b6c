#pragma once
// Engine operands in the peers' memory: a Host owner of `shape` adopting a zeroed AlignedBuffer
// placed as every variant's operand `k` is (common/buffer.hpp, operand_page_offset), so that engine
// variants and the tuner's classes read memory laid out exactly like the peers'.

#include <memory>

#include "common/buffer.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::workloads {

/// The owner keeps the buffer alive; fill it through data().
template <class T>
Tensor<T, DynRank, Host> operand_tensor(Shape shape, int threads, std::size_t k) {
  std::size_t count = 1;
  for (Index extent : shape) count *= static_cast<std::size_t>(extent);
  auto buffer = std::make_shared<AlignedBuffer<T>>(count, threads, operand_page_offset(k));
  T* data = buffer->data();
  return Tensor<T, DynRank, Host>::from_managed(std::move(shape), data, [buffer](T*, Index) {});
}

}  // namespace tfbench::workloads
