#pragma once
// The host operands of a packed_small case, shared by every variant of the case alive at once (the
// engine's variants adopt them, the host peers run on them), as bandwidth_control's triads share
// their arrays: a ratio of two variants then compares their code, not their allocations. On separate
// allocations engine:sequential read 0.97-1.05 of libxsmm's and Eigen's peers from DRAM from process
// to process (n = 8, 256 MiB, one thread, five processes, Zen 2 VM, 2026-12-05). Every variant
// writes all of C (beta 0) and its check reads C right after its own run, so a shared C is sound.

#include <memory>

#include "common/buffer.hpp"
#include "packed_small/gemm_batch.hpp"

namespace tfbench::workloads::packed_small {

/// A and B filled from the case's seeds, C zero; each placed as operand 0, 1, 2 of every variant
/// (operand_page_offset) and first touched by the worker's threads.
template <class T>
struct CaseOperands {
  AlignedBuffer<T> a, b, c;
};

/// The operands of the case (shape, seeds, threads): the ones a live variant holds, else new ones.
template <class T>
std::shared_ptr<CaseOperands<T>> case_operands(const GemmBatchShape& s, const GemmBatchSeeds& seeds,
                                               int threads);

}  // namespace tfbench::workloads::packed_small
