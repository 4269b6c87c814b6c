#pragma once
// One packed_small case: C_i = A_i B_i for a batch of n x n column-major items, packed (item
// stride n*n) or strided (leading dimension ld = n + pad, item stride ld*n: a non-compact view of
// a padded batch). Every variant fills its operands from the same counter-based random streams,
// so all of them multiply identical inputs, and the check recomputes sampled items independently.

#include "common/param_specs.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tfbench::workloads::packed_small {

struct GemmBatchShape {
  int n = 0;
  int ld = 0;               // leading dimension of every item
  std::int64_t batch = 0;   // items
  std::int64_t stride = 0;  // elements from one item to the next (ld * n)
  bool packed = true;       // ld == n: the batch is one compact column-major [n, n, batch] block
  std::size_t element_size = 8;

  std::size_t elements() const { return static_cast<std::size_t>(stride) * static_cast<std::size_t>(batch); }
  std::size_t offset(std::int64_t item, int row, int col) const {
    return static_cast<std::size_t>(item) * static_cast<std::size_t>(stride) +
           static_cast<std::size_t>(col) * ld + static_cast<std::size_t>(row);
  }
};

/// Parameters of the family, in the order `tfbench list` shows them.
std::vector<ParamSpec> gemm_batch_params();
/// The shape a case describes (batch from `batch`, or from `working_set_mib` when that is > 0).
GemmBatchShape gemm_batch_shape(const ParamReader& p);

/// 2 n^3 flops per item; bytes: A and B read, C written once (padding is never touched).
/// Every variant writes C = A B (beta 0) without reading C: its bytes are write-allocate traffic
/// (Work::write_allocate_bytes) unless the variant streamed C past the caches (`c_streamed`).
Work gemm_batch_work(const GemmBatchShape& s, bool c_streamed = false);

/// Seeds of the operands of a case.
struct GemmBatchSeeds {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
};
GemmBatchSeeds gemm_batch_seeds(std::uint64_t run_seed);

/// Writes operand values (uniform in [0.5, 1.5]) at their layout positions; padding stays as is.
template <class T>
void fill_operand(T* data, const GemmBatchShape& s, std::uint64_t seed, int threads);

/// Items the check compares: all of a batch up to 4096 items, else 4096 spread over the batch
/// (first and last included).
std::vector<std::int64_t> checked_items(std::int64_t batch);

/// Compares the output read through `c_at(item, row, col)` with an independent long-double
/// reference on the sampled items.
template <class T>
CheckResult check_gemm_batch(const GemmBatchShape& s, const GemmBatchSeeds& seeds,
                             const std::function<T(std::int64_t, int, int)>& c_at);

}  // namespace tfbench::workloads::packed_small
