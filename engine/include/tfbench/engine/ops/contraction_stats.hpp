#pragma once
// Process-wide counters of how contractions ran (atomic; cheap enough to stay on in benchmarks):
// which route each binary/unary step took, and how many operands were borrowed versus packed.
// Tests and workloads read them to observe routing (e.g. that an all-batch contraction ran as an
// elementwise product), never to decide correctness.

#include <cstdint>

namespace tfbench::ops {

struct ContractionStats {
  std::uint64_t unary = 0;                // one-operand steps (permute, diagonal, sum)
  std::uint64_t elementwise_product = 0;  // no contracted label: broadcast product in place
  std::uint64_t all_batch = 0;            // ... of which every label was a batch label
  std::uint64_t direct = 0;               // tiny items: direct strided kernel
  std::uint64_t gemm = 0;                 // one GEMM
  std::uint64_t batched_gemm = 0;         // batch labels: the batched concern's batched GEMM
  std::uint64_t gemm_calls = 0;           // large-GEMM and batched-GEMM calls made by those steps
  std::uint64_t borrowed_operands = 0;    // operands read in place
  std::uint64_t packed_operands = 0;      // operands copied or reduced into scratch first
  std::uint64_t output_via_scratch = 0;   // GEMM products copied into a strided destination
};

ContractionStats contraction_stats();
void reset_contraction_stats();

}  // namespace tfbench::ops
