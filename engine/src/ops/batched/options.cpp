// Names and messages of the batched operations' options, route report and error.

#include "tfbench/engine/ops/batched/options.hpp"

#include "specialized_gemm.hpp"

namespace tfbench::ops {

bool has_two_kernel_widths(const DType dtype, const int n) {
  return dtype == DType::F64 && impl::batched::has_two_widths(n);
}

bool has_prefetching_kernel(const DType dtype, const int n) {
  return dtype == DType::F64 && impl::batched::has_prefetching_kernel(n);
}

const char* name(Pivoting pivoting) {
  return pivoting == Pivoting::Partial ? "partial" : "none";
}

std::string describe(const BatchRun& run) {
  std::string s = tfbench::name(run.strategy);
  if (run.strategy == BatchStrategy::OuterParallel) s += " x" + std::to_string(run.lanes);
  s += std::string(" ") + name(run.provider);
  if (run.prefetch && *run.prefetch) s += "+prefetch";
  if (run.streaming_stores && *run.streaming_stores) s += "+nt-stores";
  if (run.narrow_vectors && *run.narrow_vectors) s += "+256-bit";
  if (run.tuned) s += " (tuned)";
  if (run.fan_out_withheld && *run.fan_out_withheld) s += ", withheld: ran on the calling thread";
  return s;
}

const char* name(BatchedErrc code) {
  switch (code) {
    case BatchedErrc::RankMismatch:
      return "rank_mismatch";
    case BatchedErrc::ShapeMismatch:
      return "shape_mismatch";
    case BatchedErrc::DTypeMismatch:
      return "dtype_mismatch";
    case BatchedErrc::UnsupportedDType:
      return "unsupported_dtype";
    case BatchedErrc::SpaceMismatch:
      return "space_mismatch";
    case BatchedErrc::InvalidLayout:
      return "invalid_layout";
    case BatchedErrc::InvalidScalar:
      return "invalid_scalar";
    case BatchedErrc::SizeOverflow:
      return "size_overflow";
    case BatchedErrc::NoRoute:
      return "no_route";
    case BatchedErrc::Unsupported:
      return "unsupported";
    case BatchedErrc::Singular:
      return "singular";
    case BatchedErrc::SessionParked:
      return "session_parked";
  }
  return "unknown";
}

std::string BatchedError::what() const {
  return "tfbench::" + where + ": " + message + " [" + name(code) + "]";
}

}  // namespace tfbench::ops
