#pragma once
// Base of the host peers: the case's operands (case_operands.hpp: shared by the variants of the case,
// placed as the engine's are, first touched by the worker's threads and filled from the case's
// streams); check() runs once and compares the sampled items.

#include <map>
#include <memory>
#include <string>

#include "common/buffer.hpp"
#include "common/live_by_case.hpp"
#include "packed_small/case_operands.hpp"
#include "packed_small/gemm_batch.hpp"

namespace tfbench::workloads::packed_small {

template <class T>
class HostGemmBatch : public Instance {
 public:
  HostGemmBatch(const GemmBatchShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        threads_(ctx.threads),
        operands_(case_operands<T>(s, seeds_, ctx.threads)),
        a_(operands_->a),
        b_(operands_->b),
        c_(operands_->c) {}

  CheckResult check() override {
    run();
    return check_gemm_batch<T>(shape_, seeds_,
                               [this](std::int64_t i, int r, int c) { return c_[shape_.offset(i, r, c)]; });
  }
  Work work() const override { return gemm_batch_work(shape_); }
  std::map<std::string, double> metrics() override { return shared_by_metric(operands_); }

 protected:
  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  int threads_;
  std::shared_ptr<CaseOperands<T>> operands_;
  AlignedBuffer<T>& a_;
  AlignedBuffer<T>& b_;
  AlignedBuffer<T>& c_;
};

}  // namespace tfbench::workloads::packed_small
