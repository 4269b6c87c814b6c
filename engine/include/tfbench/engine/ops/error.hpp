#pragma once
// The typed error every tensor operation throws on bad input: which check failed (code), in which
// operation (where) and why. Validation always runs before any output is written, so a caught
// OpError means the destination of an `_into` call is untouched.

#include <stdexcept>
#include <string>

namespace tfbench::ops {

enum class OpErrorCode {
  ShapeMismatch,     // operand extents disagree with each other or with the destination
  RankMismatch,      // wrong number of axes
  DTypeMismatch,     // operands or destination of different element types
  UnsupportedDType,  // the operation has no kernel for this element type
  InvalidAxis,       // axis out of range or repeated
  InvalidSpec,       // malformed einsum / tensordot specification
  InvalidLayout,     // destination overlaps itself or an input in a way the kernel cannot honour
  SpaceMismatch,     // operand memory not accessible from the session's execution space
  StalePlan,         // a prepared plan replayed with data outside its validity key (strict replay)
  Singular,          // a matrix factorization met an exactly singular pivot
  Unsupported,       // the operation does not support this combination (said in the message)
  SessionParked,     // the session is a held root parked by a running phase: use the lane's session
};

/// "shape_mismatch", "rank_mismatch", ...
const char* name(OpErrorCode code);

class OpError : public std::invalid_argument {
 public:
  OpError(OpErrorCode code, std::string where, const std::string& why)
      : std::invalid_argument("tfbench::" + where + ": " + why + " [" + name(code) + "]"),
        code_(code),
        where_(std::move(where)) {}

  OpErrorCode code() const noexcept { return code_; }
  /// The operation that rejected its input, e.g. "ops::einsum".
  const std::string& where() const noexcept { return where_; }

 private:
  OpErrorCode code_;
  std::string where_;
};

}  // namespace tfbench::ops
