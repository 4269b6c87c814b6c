#pragma once
// How a YAML scalar reads under the YAML 1.2 core schema: a quoted scalar is always a string; a
// plain one is null, a boolean, an integer, a float or a string, by its text.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

namespace tfbench::harness::impl {

struct YamlScalar {
  enum class Kind { Null, Bool, Int, Double, String };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0.0;  // set for Int and Double
  std::string text;
};

YamlScalar classify_scalar(const YAML::Node& node);

/// "'text'", "a list", "a mapping" or "nothing": what a message says it found.
std::string describe_node(const YAML::Node& node);

}  // namespace tfbench::harness::impl
