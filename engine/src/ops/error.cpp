#include "tfbench/engine/ops/error.hpp"

namespace tfbench::ops {

const char* name(OpErrorCode code) {
  switch (code) {
    case OpErrorCode::ShapeMismatch:
      return "shape_mismatch";
    case OpErrorCode::RankMismatch:
      return "rank_mismatch";
    case OpErrorCode::DTypeMismatch:
      return "dtype_mismatch";
    case OpErrorCode::UnsupportedDType:
      return "unsupported_dtype";
    case OpErrorCode::InvalidAxis:
      return "invalid_axis";
    case OpErrorCode::InvalidSpec:
      return "invalid_spec";
    case OpErrorCode::InvalidLayout:
      return "invalid_layout";
    case OpErrorCode::SpaceMismatch:
      return "space_mismatch";
    case OpErrorCode::StalePlan:
      return "stale_plan";
    case OpErrorCode::Singular:
      return "singular";
    case OpErrorCode::Unsupported:
      return "unsupported";
    case OpErrorCode::SessionParked:
      return "session_parked";
  }
  return "unknown";
}

}  // namespace tfbench::ops
