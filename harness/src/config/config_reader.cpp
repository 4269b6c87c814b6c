// The generic readers of config loading: places and issues, keys, numbers, ranges, thread and space
// lists, and the timing settings that `defaults` and benchmark blocks share.

#include "config/config_reader.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "config/yaml_scalar.hpp"
#include "tfbench/harness/text.hpp"

namespace tfbench::harness::impl {

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  const std::string near = nearest_name(name, candidates);
  return near.empty() ? std::string() : " (did you mean '" + near + "'?)";
}

std::string a_type(workloads::ParamType type) {
  return std::string(type == workloads::ParamType::Int ? "an " : "a ") + workloads::name(type);
}

std::string format_value(double v) {
  return format_number(v, 15);
}

std::vector<int> without_repeats(std::vector<int> values) {
  std::vector<int> out;
  for (int v : values) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

ConfigReader::ConfigReader(std::string path, const LoadOptions& options)
    : path_(std::move(path)), options_(options) {}

// ---- places and issues

SourceLocation ConfigReader::at(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {path_, 0, 0};
  return {path_, mark.line + 1, mark.column + 1};
}

void ConfigReader::add(SourceLocation where, std::string field, std::string message) {
  issues_.push_back({std::move(where), std::move(field), std::move(message)});
}

void ConfigReader::issue(const YAML::Node& node, const std::string& field, const std::string& message) {
  add(at(node), field, message);
}

std::string ConfigReader::child(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string ConfigReader::key_name(const YAML::Node& key) {
  return key.IsScalar() ? key.Scalar() : describe_node(key);
}

// ---- keys

void ConfigReader::flag_duplicate_keys(const YAML::Node& node, const std::string& field) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      flag_duplicate_keys(node[i], field + "[" + std::to_string(i) + "]");
  } else if (node.IsMap()) {
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;  // by value: the iterator yields a temporary pair
      const std::string name = key_name(key);
      if (!seen.insert(name).second)
        issue(key, child(field, name), "duplicate key: each key may appear once");
      flag_duplicate_keys(it->second, child(field, name));
    }
  }
}

void ConfigReader::check_keys(const YAML::Node& map, const std::string& field,
                              const std::vector<std::string>& allowed) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const std::string name = key_name(key);
    if (!seen.insert(name).second) continue;
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      issue(key, child(field, name),
            "unknown key; expected one of: " + join(allowed) + suggestion(name, allowed));
    }
  }
}

// ---- numbers

std::optional<double> ConfigReader::read_number(const YAML::Node& node, const std::string& field, double lo,
                                                double hi, bool lo_inclusive, const std::string& what) {
  const YamlScalar s = classify_scalar(node);
  if (!node.IsScalar() || (s.kind != YamlScalar::Kind::Int && s.kind != YamlScalar::Kind::Double)) {
    issue(node, field, "expected " + what + ", found " + describe_node(node));
    return std::nullopt;
  }
  const bool low_ok = lo_inclusive ? s.number >= lo : s.number > lo;
  if (!std::isfinite(s.number) || !low_ok || s.number > hi) {
    issue(node, field,
          "expected " + what + " in " + (lo_inclusive ? "[" : "(") + format_value(lo) + ", " +
              format_value(hi) + "], found " + s.text);
    return std::nullopt;
  }
  return s.number;
}

std::optional<std::int64_t> ConfigReader::read_integer(const YAML::Node& node, const std::string& field,
                                                       std::int64_t lo, std::int64_t hi,
                                                       const std::string& what) {
  const YamlScalar s = classify_scalar(node);
  const bool integral =
      s.kind == YamlScalar::Kind::Int || (s.kind == YamlScalar::Kind::Double && std::isfinite(s.number) &&
                                          std::floor(s.number) == s.number && std::fabs(s.number) < 9.0e15);
  if (!node.IsScalar() || !integral) {
    issue(node, field, "expected " + what + ", found " + describe_node(node));
    return std::nullopt;
  }
  const auto v = s.kind == YamlScalar::Kind::Int ? s.integer : static_cast<std::int64_t>(s.number);
  if (v < lo || v > hi) {
    issue(
        node, field,
        "expected " + what + " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " + s.text);
    return std::nullopt;
  }
  return v;
}

// ---- ranges

std::optional<double> ConfigReader::range_endpoint(const YAML::Node& range, const YAML::Node& end,
                                                   const std::string& field, const char* key,
                                                   const RangeSpec& spec) {
  if (!end.IsDefined()) {
    issue(range, child(field, key),
          std::string("missing field: a range needs 'from' and 'to' (and 'step' or 'times')"));
    return std::nullopt;
  }
  if (spec.allow_max && end.IsScalar() && end.Scalar() == "max") return options_.max_threads;
  const YamlScalar s = classify_scalar(end);
  const bool numeric = s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double;
  if (!end.IsScalar() || !numeric || (spec.integer && std::floor(s.number) != s.number)) {
    issue(end, child(field, key),
          std::string("expected ") + (spec.integer ? "an integer" : "a number") +
              (spec.allow_max ? " or 'max'" : "") + ", found " + describe_node(end));
    return std::nullopt;
  }
  return s.number;
}

std::optional<double> ConfigReader::range_increment(const YAML::Node& node, const std::string& field,
                                                    const char* key, const char* what, double above,
                                                    const RangeSpec& spec) {
  const YamlScalar s = classify_scalar(node);
  const bool numeric = s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double;
  if (!numeric || !(s.number > above) || (spec.integer && std::floor(s.number) != s.number)) {
    issue(node, child(field, key),
          std::string("bad range: expected ") + what + (spec.integer ? " (an integer)" : "") + ", found " +
              describe_node(node));
    return std::nullopt;
  }
  return s.number;
}

std::optional<std::vector<double>> ConfigReader::geometric_range(const YAML::Node& range,
                                                                 const std::string& field, double from,
                                                                 double to, const RangeSpec& spec) {
  const auto factor = range_increment(range["times"], field, "times", "a factor > 1", 1.0, spec);
  if (!factor) return std::nullopt;
  if (!(from > 0.0)) {
    issue(range["from"], child(field, "from"),
          "bad range: a geometric range ('times') needs 'from' > 0, found " + format_value(from));
    return std::nullopt;
  }
  std::vector<double> values;
  for (double v = from; v <= to * (1.0 + 1e-12); v *= *factor) {
    values.push_back(spec.integer ? std::round(v) : v);
    if (values.size() > kMaxRangeValues) break;
  }
  return values;
}

std::optional<std::vector<double>> ConfigReader::arithmetic_range(const YAML::Node& range,
                                                                  const std::string& field, double from,
                                                                  double to, const RangeSpec& spec) {
  const YAML::Node step_node = range["step"];
  double step = 1.0;
  if (step_node.IsDefined()) {
    const auto given = range_increment(step_node, field, "step", "a step > 0", 0.0, spec);
    if (!given) return std::nullopt;
    step = *given;
  } else if (!spec.integer) {
    issue(range, field, "bad range: a range of numbers needs 'step' or 'times'");
    return std::nullopt;
  }
  std::vector<double> values;
  const double count = std::floor((to - from) / step + 1e-9) + 1.0;
  if (count > static_cast<double>(kMaxRangeValues)) {
    values.resize(kMaxRangeValues + 1);
  } else {
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) values.push_back(from + i * step);
  }
  return values;
}

std::optional<std::vector<double>> ConfigReader::read_range(const YAML::Node& node, const std::string& field,
                                                            const RangeSpec& spec) {
  check_keys(node, field, {"from", "to", "step", "times"});
  const YAML::Node to_node = node["to"];
  // Both ends are read (and their issues recorded) before either is used.
  const auto from = range_endpoint(node, node["from"], field, "from", spec);
  const auto to = range_endpoint(node, to_node, field, "to", spec);
  const bool geometric = node["times"].IsDefined();
  if (node["step"].IsDefined() && geometric) {
    issue(node, field, "bad range: give 'step' (arithmetic) or 'times' (geometric), not both");
    return std::nullopt;
  }
  if (!from || !to) return std::nullopt;
  if (*to < *from) {
    issue(to_node, child(field, "to"),
          "bad range: expected 'to' >= 'from' (" + format_value(*from) + "), found " + format_value(*to));
    return std::nullopt;
  }
  auto values = geometric ? geometric_range(node, field, *from, *to, spec)
                          : arithmetic_range(node, field, *from, *to, spec);
  if (values && values->size() > kMaxRangeValues) {
    issue(node, field, "bad range: expected at most " + std::to_string(kMaxRangeValues) + " values");
    return std::nullopt;
  }
  return values;
}

// ---- thread and space lists

bool ConfigReader::each_item(const YAML::Node& node, const std::string& field, const char* empty_list,
                             const std::function<void(const YAML::Node&)>& read_one) {
  if (!node.IsSequence()) {
    read_one(node);
    return true;
  }
  if (node.size() == 0) {
    issue(node, field, empty_list);
    return false;
  }
  for (const auto& n : node) read_one(n);
  return true;
}

std::optional<std::vector<int>> ConfigReader::read_threads(const YAML::Node& node, const std::string& field) {
  std::vector<int> out;
  bool ok = true;
  auto one = [&](const YAML::Node& n) {
    if (n.IsScalar() && n.Scalar() == "max") {
      out.push_back(options_.max_threads);
      return;
    }
    if (const auto v = read_integer(n, field, 1, kMaxThreads, "a thread count or 'max'")) {
      out.push_back(static_cast<int>(*v));
    } else {
      ok = false;
    }
  };
  if (node.IsMap()) {
    RangeSpec spec;
    spec.allow_max = true;
    const auto values = read_range(node, field, spec);
    if (!values) return std::nullopt;
    for (double v : *values) {
      if (v < 1 || v > kMaxThreads) {
        issue(node, field,
              "expected thread counts in [1, " + std::to_string(kMaxThreads) + "], found " + format_value(v));
        return std::nullopt;
      }
      out.push_back(static_cast<int>(v));
    }
  } else if (!each_item(node, field, "expected at least one thread count (e.g. [1, max])", one)) {
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return without_repeats(out);
}

std::optional<std::vector<ExecSpaceKind>> ConfigReader::read_spaces(const YAML::Node& node,
                                                                    const std::string& field) {
  std::vector<std::string> enabled;
  for (ExecSpaceKind k : enabled_exec_spaces()) enabled.push_back(name(k));
  std::vector<ExecSpaceKind> out;
  bool ok = true;
  auto one = [&](const YAML::Node& n) {
    const auto kind = n.IsScalar() ? parse_exec_space(n.Scalar()) : std::nullopt;
    if (!kind || !is_enabled(*kind)) {
      issue(n, field,
            "expected an execution space enabled in this build: " + join(enabled) + ", found " +
                describe_node(n));
      ok = false;
      return;
    }
    if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
  };
  if (!each_item(node, field, "expected at least one execution space", one)) return std::nullopt;
  if (!ok) return std::nullopt;
  return out;
}

// ---- timing settings

void ConfigReader::read_common(const YAML::Node& map, const std::string& field, FileDefaults& into) {
  if (const YAML::Node n = map["threads"]; n.IsDefined()) {
    if (auto v = read_threads(n, child(field, "threads"))) into.threads = *v;
  }
  if (const YAML::Node n = map["exec_space"]; n.IsDefined()) {
    if (auto v = read_spaces(n, child(field, "exec_space"))) into.spaces = *v;
  }
  if (const YAML::Node n = map["repetitions"]; n.IsDefined()) {
    if (auto v = read_integer(n, child(field, "repetitions"), 1, 100000, "an integer number of samples"))
      into.repetitions = static_cast<int>(*v);
  }
  if (const YAML::Node n = map["min_time"]; n.IsDefined()) {
    if (auto v = read_number(n, child(field, "min_time"), 0.0, 3600.0, false, "seconds per sample"))
      into.min_time = *v;
  }
  if (const YAML::Node n = map["threshold_pct"]; n.IsDefined()) {
    if (auto v = read_number(n, child(field, "threshold_pct"), 0.0, 100000.0, false,
                             "a regression threshold in percent"))
      into.threshold_pct = *v;
  }
  if (const YAML::Node n = map["case_timeout"]; n.IsDefined()) {
    if (auto v = read_number(n, child(field, "case_timeout"), 0.0, kMaxCaseTimeout, true,
                             "seconds per case (0: no limit)"))
      into.case_timeout = *v;
  }
}

}  // namespace tfbench::harness::impl
