#pragma once
// Base of every contraction_replay variant: the stream's keys, one set of operand buffers sized for
// the largest key (each key reads them as compact tensors of its own layout) and one output buffer.
// run() makes `calls` calls, walking the stream (the position persists across iterations, so a
// fresh stream keeps producing keys the plan cache has not seen recently).

#include "common/buffer.hpp"
#include "contraction_replay/key_stream.hpp"
#include "tfbench/workloads/family.hpp"

#include <vector>

namespace tfbench::workloads::contraction_replay {

class ReplayBase : public Instance {
 public:
  ReplayBase(const StreamSpec& spec, const RunContext& ctx);

  /// One call per distinct key of the stream (at most `calls`), each output against the naive
  /// long-double reference of its key.
  CheckResult check() override;
  void run() override;
  /// calls x the mean of the stream keys' work (exact for fixed and for mixed when mixed_keys
  /// divides calls): 2 flops per multiply-add of the cheapest pairwise path; bytes of the operands
  /// read and the output written once per call.
  Work work() const override;

 protected:
  /// Evaluates `key` on the input buffers into out_ (compact in the output's label order).
  virtual void call(std::size_t key_index) = 0;
  const ContractionKey& key(std::size_t i) const { return keys_[i]; }
  std::size_t key_count() const { return keys_.size(); }

  StreamSpec spec_;
  int threads_;
  std::vector<ContractionKey> keys_;
  std::vector<AlignedBuffer<double>> in_;
  AlignedBuffer<double> out_;
  std::size_t cursor_ = 0;
};

}  // namespace tfbench::workloads::contraction_replay
