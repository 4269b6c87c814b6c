#include "tfbench/engine/ops/einsum_spec.hpp"

#include <algorithm>

#include "tfbench/engine/ops/error.hpp"

namespace tfbench::ops {
namespace {

bool is_label(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

[[noreturn]] void fail(std::string_view text, std::size_t pos, const std::string& why) {
  throw OpError(OpErrorCode::InvalidSpec, "ops::parse_einsum",
                "'" + std::string(text) + "' at position " + std::to_string(pos) + ": " + why);
}

}  // namespace

std::string EinsumSpec::to_string() const {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i) s += ',';
    s.append(inputs[i].begin(), inputs[i].end());
  }
  s += "->";
  s.append(output.begin(), output.end());
  return s;
}

EinsumSpec parse_einsum(std::string_view text) {
  EinsumSpec spec;
  const std::size_t arrow = text.find("->");
  const std::string_view lhs = text.substr(0, arrow);
  LabelList current;
  auto finish_operand = [&]() {
    spec.inputs.push_back(current);
    current.clear();
  };
  for (std::size_t i = 0; i < lhs.size(); ++i) {
    const char c = lhs[i];
    if (c == ' ') continue;
    if (c == ',') {
      finish_operand();
    } else if (c == '.') {
      fail(text, i, "ellipsis ('...') is not supported; name every axis");
    } else if (!is_label(c)) {
      fail(text, i, std::string("'") + c + "' is not a label (labels are ASCII letters)");
    } else if (current.size() == current.capacity()) {
      fail(text, i, "operand has more than " + std::to_string(current.capacity()) + " axes");
    } else {
      current.push_back(c);
    }
  }
  finish_operand();

  auto appears = [&](char c) {
    int count = 0;
    for (const auto& in : spec.inputs) count += static_cast<int>(std::count(in.begin(), in.end(), c));
    return count;
  };
  if (arrow == std::string_view::npos) {
    for (char c = 'A'; c <= 'z'; ++c)
      if (is_label(c) && appears(c) == 1) spec.output.push_back(c);
    return spec;
  }
  const std::string_view rhs = text.substr(arrow + 2);
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    const char c = rhs[i];
    const std::size_t pos = arrow + 2 + i;
    if (c == ' ') continue;
    if (!is_label(c)) fail(text, pos, std::string("'") + c + "' is not an output label");
    if (spec.output.contains(c)) fail(text, pos, std::string("output label '") + c + "' repeats");
    if (appears(c) == 0) fail(text, pos, std::string("output label '") + c + "' is in no operand");
    spec.output.push_back(c);
  }
  return spec;
}

}  // namespace tfbench::ops
