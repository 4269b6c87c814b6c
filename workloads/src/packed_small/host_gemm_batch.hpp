#pragma once
// Base of the host peers: operands in aligned host buffers placed as the engine's are, first touched
// by the worker's threads and filled from the case's streams; check() runs once and compares the sampled
// items.

#include "common/buffer.hpp"
#include "packed_small/gemm_batch.hpp"

namespace tfbench::workloads::packed_small {

template <class T>
class HostGemmBatch : public Instance {
 public:
  HostGemmBatch(const GemmBatchShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        threads_(ctx.threads),
        a_(s.elements(), ctx.threads, operand_page_offset(0)),
        b_(s.elements(), ctx.threads, operand_page_offset(1)),
        c_(s.elements(), ctx.threads, operand_page_offset(2)) {
    fill_operand(a_.data(), s, seeds_.a, threads_);
    fill_operand(b_.data(), s, seeds_.b, threads_);
  }

  CheckResult check() override {
    run();
    return check_gemm_batch<T>(shape_, seeds_,
                               [this](std::int64_t i, int r, int c) { return c_[shape_.offset(i, r, c)]; });
  }
  Work work() const override { return gemm_batch_work(shape_); }

 protected:
  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  int threads_;
  AlignedBuffer<T> a_, b_, c_;
};

}  // namespace tfbench::workloads::packed_small
