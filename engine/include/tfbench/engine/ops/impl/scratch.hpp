#pragma once
// Scratch buffers of one operation (packed operands, intermediates of an N-ary einsum, a GEMM
// product on its way to a strided destination). An arena hands out typed buffers that stay valid
// until it is destroyed; the kernels never read scratch they did not write first.

#include <cstddef>

#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

class ScratchArena {
 public:
  virtual ~ScratchArena() = default;

  template <class T>
  T* take(index_t count) {
    return static_cast<T*>(take_bytes(static_cast<std::size_t>(count) * sizeof(T)));
  }

 protected:
  /// At least `bytes` bytes aligned for any element type, in the operation's memory space.
  virtual void* take_bytes(std::size_t bytes) = 0;
};

}  // namespace tfbench::impl
