// The family parameters of a benchmark block: the values one parameter sweeps (a scalar, a list or
// a numeric range), each read as the parameter's type and checked against its choices and bounds.

#include <algorithm>
#include <cmath>

#include "config/config_reader.hpp"
#include "config/yaml_scalar.hpp"
#include "tfbench/harness/text.hpp"

namespace tfbench::harness::impl {

using workloads::ParamSpec;
using workloads::ParamType;
using workloads::ParamValue;

std::optional<ParamValue> ConfigReader::read_param_value(const YAML::Node& node, const ParamSpec& spec,
                                                         const std::string& field) {
  const YamlScalar s = classify_scalar(node);
  const std::string what =
      a_type(spec.type) + (spec.description.empty() ? "" : " (" + spec.description + ")");
  if (!node.IsScalar() || s.kind == YamlScalar::Kind::Null) {
    issue(node, field, "expected " + what + ", found " + describe_node(node));
    return std::nullopt;
  }
  std::optional<ParamValue> value;
  switch (spec.type) {
    case ParamType::Int:
      if (s.kind == YamlScalar::Kind::Int) {
        value = ParamValue{s.integer};
      } else if (s.kind == YamlScalar::Kind::Double && std::isfinite(s.number) &&
                 std::floor(s.number) == s.number && std::fabs(s.number) < 9.0e15) {
        value = ParamValue{static_cast<std::int64_t>(s.number)};
      }
      break;
    case ParamType::Double:
      if (s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double) value = ParamValue{s.number};
      break;
    case ParamType::Bool:
      if (s.kind == YamlScalar::Kind::Bool) value = ParamValue{s.boolean};
      break;
    case ParamType::String:
      value = ParamValue{s.text};
      break;
  }
  if (!value) {
    issue(node, field, "wrong type: expected " + what + ", found " + describe_node(node));
    return std::nullopt;
  }
  if (!check_value(node, spec, field, *value)) return std::nullopt;
  return value;
}

bool ConfigReader::check_value(const YAML::Node& node, const ParamSpec& spec, const std::string& field,
                               const ParamValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) {
    if (!spec.choices.empty() &&
        std::find(spec.choices.begin(), spec.choices.end(), *text) == spec.choices.end()) {
      issue(node, field,
            "expected one of: " + join(spec.choices) + ", found '" + *text + "'" +
                suggestion(*text, spec.choices));
      return false;
    }
    return true;
  }
  double v = 0.0;
  if (const auto* i = std::get_if<std::int64_t>(&value))
    v = static_cast<double>(*i);
  else if (const auto* d = std::get_if<double>(&value))
    v = *d;
  else
    return true;
  if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
    issue(node, field,
          "out of range: expected " + std::string(workloads::name(spec.type)) + " in [" +
              (spec.min ? format_value(*spec.min) : "-inf") + ", " +
              (spec.max ? format_value(*spec.max) : "inf") + "], found " + workloads::to_string(value));
    return false;
  }
  return true;
}

std::optional<std::vector<ParamValue>> ConfigReader::read_param(const YAML::Node& node, const ParamSpec& spec,
                                                                const std::string& field) {
  std::vector<ParamValue> values;
  if (node.IsMap()) {
    if (spec.type != ParamType::Int && spec.type != ParamType::Double) {
      issue(node, field,
            "expected " + a_type(spec.type) +
                " or a list of them; ranges ({from, to, step|times}) apply to numeric parameters only");
      return std::nullopt;
    }
    RangeSpec range;
    range.integer = spec.type == ParamType::Int;
    const auto expanded = read_range(node, field, range);
    if (!expanded) return std::nullopt;
    for (double v : *expanded) {
      const ParamValue value = range.integer ? ParamValue{static_cast<std::int64_t>(v)} : ParamValue{v};
      if (!check_value(node, spec, field, value)) return std::nullopt;
      values.push_back(value);
    }
    return values;
  }
  if (node.IsSequence()) {
    if (node.size() == 0) {
      issue(node, field, "expected at least one value");
      return std::nullopt;
    }
    bool ok = true;
    for (const auto& n : node) {
      if (auto v = read_param_value(n, spec, field))
        values.push_back(*v);
      else
        ok = false;
    }
    if (!ok) return std::nullopt;
    return values;
  }
  if (auto v = read_param_value(node, spec, field)) return std::vector<ParamValue>{*v};
  return std::nullopt;
}

}  // namespace tfbench::harness::impl
