#pragma once
// Einstein-summation specifications: "ij,jk->ik". Labels are ASCII letters; a label repeated inside
// one operand takes that operand's diagonal; labels absent from the output are summed. Without
// "->" the output is every label that appears exactly once, in alphabetical order (NumPy's rule).
// Parsing validates the text once; binding to operand shapes validates extents (einsum.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "tfbench/engine/ops/impl/fixed_vec.hpp"
#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::ops {

/// The labels of one operand or of the output, in axis order.
using LabelList = impl::FixedVec<char, impl::kMaxOpRank>;

struct EinsumSpec {
  std::vector<LabelList> inputs;
  LabelList output;

  std::size_t operand_count() const { return inputs.size(); }
  /// The normalized text, e.g. "ij,jk->ik".
  std::string to_string() const;
};

/// Parses `text`; throws OpError(InvalidSpec) naming the offending position on malformed input
/// (non-letter labels, "...", repeated or unknown output labels, empty operand list).
EinsumSpec parse_einsum(std::string_view text);

}  // namespace tfbench::ops
