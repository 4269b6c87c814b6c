#include "tfbench/harness/config.hpp"

#include "config/yaml_scalar.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/registry.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace tfbench::harness {

using impl::YamlScalar;
using workloads::Family;
using workloads::ParamSpec;
using workloads::ParamType;
using workloads::ParamValue;

std::string SourceLocation::to_string() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string ConfigIssue::to_string() const {
  return where.to_string() + ": " + field + ": " + message;
}

namespace {
std::string summarize(const std::vector<ConfigIssue>& issues) {
  std::string out;
  for (const auto& issue : issues) {
    if (!out.empty()) out += '\n';
    out += issue.to_string();
  }
  return out;
}
}  // namespace

namespace {
/// Issues in file order, whatever order the checks ran in.
std::vector<ConfigIssue> in_file_order(std::vector<ConfigIssue> issues) {
  std::stable_sort(issues.begin(), issues.end(), [](const ConfigIssue& a, const ConfigIssue& b) {
    return std::make_pair(a.where.line, a.where.column) < std::make_pair(b.where.line, b.where.column);
  });
  return issues;
}
}  // namespace

ConfigError::ConfigError(std::vector<ConfigIssue> issues)
    : std::runtime_error(summarize(in_file_order(issues))), issues_(in_file_order(std::move(issues))) {}

std::size_t BenchmarkBlock::point_count() const {
  std::size_t count = 1;
  for (const auto& entry : sweep) count *= entry.second.size();
  return count;
}

std::vector<workloads::Params> BenchmarkBlock::expand() const {
  std::vector<workloads::Params> points;
  const std::size_t total = point_count();
  points.reserve(total);
  for (std::size_t index = 0; index < total; ++index) {
    workloads::Params params;
    std::size_t rest = index;
    // The last parameter varies fastest: decode `index` as a mixed-radix number.
    for (std::size_t k = sweep.size(); k-- > 0;) {
      const auto& values = sweep[k].second;
      params.set(sweep[k].first, values[rest % values.size()]);
      rest /= values.size();
    }
    points.push_back(std::move(params));
  }
  return points;
}

namespace {

constexpr std::size_t kMaxRangeValues = 100000;
constexpr std::size_t kMaxPoints = 1000000;
constexpr int kMaxThreads = 4096;
constexpr double kMaxCaseTimeout = 1e6;  // seconds: about 11 days

std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> q;
  q.reserve(names.size());
  for (const auto& n : names) q.push_back(n);
  return join(q);
}

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  const std::string near = nearest_name(name, candidates);
  return near.empty() ? std::string() : " (did you mean '" + near + "'?)";
}

/// "an integer", "a number", "a boolean", "a string".
std::string a_type(ParamType type) {
  return std::string(type == ParamType::Int ? "an " : "a ") + workloads::name(type);
}

std::string format_value(double v) {
  return format_number(v, 15);
}

/// Run-level defaults of one file (`defaults:`), already merged with the built-in ones.
struct FileDefaults {
  std::vector<int> threads;
  std::vector<ExecSpaceKind> spaces;
  int repetitions = BuiltinDefaults::repetitions;
  double min_time = BuiltinDefaults::min_time;
  std::optional<double> threshold_pct;
  std::optional<double> case_timeout;
  std::optional<std::uint64_t> seed;
};

/// A numeric range `{from, to, step}` or `{from, to, times}`, expanded.
struct RangeSpec {
  bool integer = true;     // values must be integers
  bool allow_max = false;  // `to: max` (thread lists)
  std::string unit = "value";
};

class Loader {
 public:
  Loader(std::string path, const LoadOptions& options) : path_(std::move(path)), options_(options) {}

  Config load(std::string_view text) {
    Config config;
    config.path = path_;
    config.text = std::string(text);
    YAML::Node loaded;
    try {
      loaded = YAML::Load(config.text);
    } catch (const YAML::Exception& e) {
      add({path_, e.mark.line + 1, e.mark.column + 1}, "(yaml)", "malformed YAML: " + e.msg);
      throw ConfigError(issues_);
    }
    const YAML::Node& root = loaded;  // const: reading a key must never insert it
    if (!root.IsDefined() || root.IsNull()) {
      add({path_, 1, 1}, "(file)", "expected a mapping with a 'benchmarks' list; the file is empty");
      throw ConfigError(issues_);
    }
    if (!root.IsMap()) {
      issue(root, "(file)",
            "expected a mapping with keys 'defaults' and 'benchmarks', found " + impl::describe_node(root));
      throw ConfigError(issues_);
    }
    flag_duplicate_keys(root, "");
    check_keys(root, "", {"defaults", "benchmarks"});

    FileDefaults defaults;
    defaults.threads = unique({1, options_.max_threads});
    defaults.spaces = {default_device_space()};
    if (const YAML::Node d = root["defaults"]; d.IsDefined() && !d.IsNull()) read_defaults(d, defaults);
    config.seed = defaults.seed;

    const YAML::Node list = root["benchmarks"];
    if (!list.IsDefined()) {
      issue(root, "benchmarks", "missing field: expected a list of benchmark blocks (each with 'family')");
    } else if (!list.IsSequence() || list.size() == 0) {
      issue(list, "benchmarks",
            "expected a non-empty list of benchmark blocks (each with 'family'), found " +
                impl::describe_node(list));
    } else {
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto block = read_block(list[i], i, defaults);
        if (block) config.blocks.push_back(std::move(*block));
      }
    }
    if (!issues_.empty()) throw ConfigError(issues_);
    return config;
  }

 private:
  SourceLocation at(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return {path_, 0, 0};
    return {path_, mark.line + 1, mark.column + 1};
  }
  void add(SourceLocation where, std::string field, std::string message) {
    issues_.push_back({std::move(where), std::move(field), std::move(message)});
  }
  void issue(const YAML::Node& node, const std::string& field, const std::string& message) {
    add(at(node), field, message);
  }
  static std::string child(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  static std::string key_name(const YAML::Node& key) {
    return key.IsScalar() ? key.Scalar() : impl::describe_node(key);
  }

  /// Flags every repeated key of every mapping in the document: yaml-cpp keeps both and a lookup
  /// finds the first, so a repeated key would otherwise silently lose its second value.
  void flag_duplicate_keys(const YAML::Node& node, const std::string& field) {
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

  /// Flags keys outside `allowed` (with the nearest allowed name); repeated keys are flagged once,
  /// for the whole document, by flag_duplicate_keys.
  void check_keys(const YAML::Node& map, const std::string& field, const std::vector<std::string>& allowed) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      const std::string name = key_name(key);
      if (!seen.insert(name).second) continue;
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        issue(key, child(field, name),
              "unknown key; expected one of: " + quoted_list(allowed) + suggestion(name, allowed));
      }
    }
  }

  static std::vector<int> unique(std::vector<int> values) {
    std::vector<int> out;
    for (int v : values) {
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
  }

  std::optional<double> read_number(const YAML::Node& node, const std::string& field, double lo, double hi,
                                    bool lo_inclusive, const std::string& what) {
    const YamlScalar s = impl::classify_scalar(node);
    if (!node.IsScalar() || (s.kind != YamlScalar::Kind::Int && s.kind != YamlScalar::Kind::Double)) {
      issue(node, field, "expected " + what + ", found " + impl::describe_node(node));
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

  std::optional<std::int64_t> read_integer(const YAML::Node& node, const std::string& field, std::int64_t lo,
                                           std::int64_t hi, const std::string& what) {
    const YamlScalar s = impl::classify_scalar(node);
    const bool integral =
        s.kind == YamlScalar::Kind::Int || (s.kind == YamlScalar::Kind::Double && std::isfinite(s.number) &&
                                            std::floor(s.number) == s.number && std::fabs(s.number) < 9.0e15);
    if (!node.IsScalar() || !integral) {
      issue(node, field, "expected " + what + ", found " + impl::describe_node(node));
      return std::nullopt;
    }
    const auto v = s.kind == YamlScalar::Kind::Int ? s.integer : static_cast<std::int64_t>(s.number);
    if (v < lo || v > hi) {
      issue(node, field,
            "expected " + what + " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " +
                s.text);
      return std::nullopt;
    }
    return v;
  }

  /// Expands a range mapping; nullopt (with issues) when it is malformed.
  std::optional<std::vector<double>> read_range(const YAML::Node& node, const std::string& field,
                                                const RangeSpec& spec) {
    check_keys(node, field, {"from", "to", "step", "times"});
    const YAML::Node from_node = node["from"], to_node = node["to"], step_node = node["step"],
                     times_node = node["times"];
    bool ok = true;
    auto endpoint = [&](const YAML::Node& n, const char* key) -> std::optional<double> {
      if (!n.IsDefined()) {
        issue(node, child(field, key),
              std::string("missing field: a range needs 'from' and 'to' (and 'step' or 'times')"));
        ok = false;
        return std::nullopt;
      }
      if (spec.allow_max && n.IsScalar() && n.Scalar() == "max") return options_.max_threads;
      const YamlScalar s = impl::classify_scalar(n);
      const bool numeric = s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double;
      if (!n.IsScalar() || !numeric || (spec.integer && std::floor(s.number) != s.number)) {
        issue(n, child(field, key),
              std::string("expected ") + (spec.integer ? "an integer" : "a number") +
                  (spec.allow_max ? " or 'max'" : "") + ", found " + impl::describe_node(n));
        ok = false;
        return std::nullopt;
      }
      return s.number;
    };
    const auto from = endpoint(from_node, "from");
    const auto to = endpoint(to_node, "to");
    if (step_node.IsDefined() && times_node.IsDefined()) {
      issue(node, field, "bad range: give 'step' (arithmetic) or 'times' (geometric), not both");
      return std::nullopt;
    }
    if (!ok) return std::nullopt;
    if (*to < *from) {
      issue(to_node, child(field, "to"),
            "bad range: expected 'to' >= 'from' (" + format_value(*from) + "), found " + format_value(*to));
      return std::nullopt;
    }
    std::vector<double> values;
    if (times_node.IsDefined()) {
      const YamlScalar t = impl::classify_scalar(times_node);
      const bool numeric = t.kind == YamlScalar::Kind::Int || t.kind == YamlScalar::Kind::Double;
      if (!numeric || !(t.number > 1.0) || (spec.integer && std::floor(t.number) != t.number)) {
        issue(times_node, child(field, "times"),
              std::string("bad range: expected a factor > 1") + (spec.integer ? " (an integer)" : "") +
                  ", found " + impl::describe_node(times_node));
        return std::nullopt;
      }
      if (!(*from > 0.0)) {
        issue(from_node, child(field, "from"),
              "bad range: a geometric range ('times') needs 'from' > 0, found " + format_value(*from));
        return std::nullopt;
      }
      for (double v = *from; v <= *to * (1.0 + 1e-12); v *= t.number) {
        values.push_back(spec.integer ? std::round(v) : v);
        if (values.size() > kMaxRangeValues) break;
      }
    } else {
      double step = 1.0;
      if (step_node.IsDefined()) {
        const YamlScalar s = impl::classify_scalar(step_node);
        const bool numeric = s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double;
        if (!numeric || !(s.number > 0.0) || (spec.integer && std::floor(s.number) != s.number)) {
          issue(step_node, child(field, "step"),
                std::string("bad range: expected a step > 0") + (spec.integer ? " (an integer)" : "") +
                    ", found " + impl::describe_node(step_node));
          return std::nullopt;
        }
        step = s.number;
      } else if (!spec.integer) {
        issue(node, field, "bad range: a range of numbers needs 'step' or 'times'");
        return std::nullopt;
      }
      const double count = std::floor((*to - *from) / step + 1e-9) + 1.0;
      if (count > static_cast<double>(kMaxRangeValues)) {
        values.resize(kMaxRangeValues + 1);
      } else {
        for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) values.push_back(*from + i * step);
      }
    }
    if (values.size() > kMaxRangeValues) {
      issue(node, field, "bad range: expected at most " + std::to_string(kMaxRangeValues) + " values");
      return std::nullopt;
    }
    return values;
  }

  std::optional<std::vector<int>> read_threads(const YAML::Node& node, const std::string& field) {
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
          issue(
              node, field,
              "expected thread counts in [1, " + std::to_string(kMaxThreads) + "], found " + format_value(v));
          return std::nullopt;
        }
        out.push_back(static_cast<int>(v));
      }
    } else if (node.IsSequence()) {
      if (node.size() == 0) {
        issue(node, field, "expected at least one thread count (e.g. [1, max])");
        return std::nullopt;
      }
      for (const auto& n : node) one(n);
    } else {
      one(node);
    }
    if (!ok) return std::nullopt;
    return unique(out);
  }

  std::optional<std::vector<ExecSpaceKind>> read_spaces(const YAML::Node& node, const std::string& field) {
    std::vector<std::string> enabled;
    for (ExecSpaceKind k : enabled_exec_spaces()) enabled.push_back(name(k));
    std::vector<ExecSpaceKind> out;
    bool ok = true;
    auto one = [&](const YAML::Node& n) {
      const auto kind = n.IsScalar() ? parse_exec_space(n.Scalar()) : std::nullopt;
      if (!kind || !is_enabled(*kind)) {
        issue(n, field,
              "expected an execution space enabled in this build: " + join(enabled) + ", found " +
                  impl::describe_node(n));
        ok = false;
        return;
      }
      if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
    };
    if (node.IsSequence()) {
      if (node.size() == 0) {
        issue(node, field, "expected at least one execution space");
        return std::nullopt;
      }
      for (const auto& n : node) one(n);
    } else {
      one(node);
    }
    if (!ok) return std::nullopt;
    return out;
  }

  /// The timing settings shared by `defaults` and benchmark blocks.
  void read_common(const YAML::Node& map, const std::string& field, FileDefaults& into) {
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

  void read_defaults(const YAML::Node& node, FileDefaults& defaults) {
    if (!node.IsMap()) {
      issue(node, "defaults", "expected a mapping of run-level defaults, found " + impl::describe_node(node));
      return;
    }
    check_keys(node, "defaults",
               {"threads", "exec_space", "repetitions", "min_time", "threshold_pct", "case_timeout", "seed"});
    read_common(node, "defaults", defaults);
    if (const YAML::Node n = node["seed"]; n.IsDefined()) {
      if (auto v = read_integer(n, "defaults.seed", 0, std::numeric_limits<std::int64_t>::max(),
                                "a non-negative integer seed"))
        defaults.seed = static_cast<std::uint64_t>(*v);
    }
  }

  /// One scalar as a value of `spec`'s type, with its choices and bounds checked.
  std::optional<ParamValue> read_param_value(const YAML::Node& node, const ParamSpec& spec,
                                             const std::string& field) {
    const YamlScalar s = impl::classify_scalar(node);
    const std::string what =
        a_type(spec.type) + (spec.description.empty() ? "" : " (" + spec.description + ")");
    if (!node.IsScalar() || s.kind == YamlScalar::Kind::Null) {
      issue(node, field, "expected " + what + ", found " + impl::describe_node(node));
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
        if (s.kind == YamlScalar::Kind::Int || s.kind == YamlScalar::Kind::Double)
          value = ParamValue{s.number};
        break;
      case ParamType::Bool:
        if (s.kind == YamlScalar::Kind::Bool) value = ParamValue{s.boolean};
        break;
      case ParamType::String:
        value = ParamValue{s.text};
        break;
    }
    if (!value) {
      issue(node, field, "wrong type: expected " + what + ", found " + impl::describe_node(node));
      return std::nullopt;
    }
    if (!check_value(node, spec, field, *value)) return std::nullopt;
    return value;
  }

  bool check_value(const YAML::Node& node, const ParamSpec& spec, const std::string& field,
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

  std::optional<std::vector<ParamValue>> read_param(const YAML::Node& node, const ParamSpec& spec,
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

  std::optional<BenchmarkBlock> read_block(const YAML::Node& node, std::size_t index,
                                           const FileDefaults& defaults) {
    const std::string field = "benchmarks[" + std::to_string(index) + "]";
    if (!node.IsMap()) {
      issue(node, field, "expected a mapping with 'family' and 'params', found " + impl::describe_node(node));
      return std::nullopt;
    }
    const std::size_t issues_before = issues_.size();
    check_keys(node, field,
               {"family", "params", "variants", "threads", "exec_space", "repetitions", "min_time",
                "threshold_pct", "case_timeout"});
    BenchmarkBlock block;
    block.index = index;
    block.where = at(node);

    const std::vector<const Family*>& known =
        options_.families.empty() ? workloads::families() : options_.families;
    std::vector<std::string> family_names;
    for (const Family* f : known) family_names.emplace_back(f->name());
    const YAML::Node family_node = node["family"];
    if (!family_node.IsDefined()) {
      issue(node, field + ".family", "missing field: expected a family name, one of: " + join(family_names));
    } else if (!family_node.IsScalar()) {
      issue(family_node, field + ".family",
            "expected a family name, one of: " + join(family_names) + ", found " +
                impl::describe_node(family_node));
    } else {
      block.where = at(family_node);
      for (const Family* f : known) {
        if (f->name() == family_node.Scalar()) block.family = f;
      }
      if (!block.family) {
        issue(family_node, field + ".family",
              "unknown family '" + family_node.Scalar() + "'; expected one of: " + join(family_names) +
                  suggestion(family_node.Scalar(), family_names));
      }
    }

    FileDefaults settings = defaults;
    read_common(node, field, settings);
    block.threads = settings.threads;
    block.spaces = settings.spaces;
    block.repetitions = settings.repetitions;
    block.min_time = settings.min_time;
    block.threshold_pct = settings.threshold_pct;
    block.case_timeout = settings.case_timeout;

    if (block.family) read_params(node, field, block);

    const YAML::Node variants = node["variants"];
    if (variants.IsDefined()) {
      const std::string vfield = field + ".variants";
      std::vector<YAML::Node> patterns;
      if (variants.IsSequence()) {
        for (const auto& v : variants) patterns.push_back(v);
        if (patterns.empty()) issue(variants, vfield, "expected at least one variant name or glob");
      } else {
        patterns.push_back(variants);
      }
      for (const auto& p : patterns) {
        if (!p.IsScalar() || p.Scalar().empty()) {
          issue(p, vfield,
                "expected a variant name or glob (e.g. 'peer:*'), found " + impl::describe_node(p));
          continue;
        }
        block.variant_patterns.push_back(p.Scalar());
      }
      if (block.family && issues_.size() == issues_before) check_variant_patterns(patterns, vfield, block);
    }
    if (issues_.size() != issues_before) return std::nullopt;
    return block;
  }

  void read_params(const YAML::Node& node, const std::string& field, BenchmarkBlock& block) {
    const std::vector<ParamSpec> specs = block.family->parameters();
    std::vector<std::string> names;
    for (const auto& s : specs) names.push_back(s.name);
    // `params:` may be left out (or empty) when every parameter has a default. A key that is absent
    // yields an invalid node, which throws on anything but IsDefined().
    const YAML::Node params = node["params"];
    const std::string pfield = field + ".params";
    const bool given = params.IsDefined() && !params.IsNull();
    if (given && !params.IsMap()) {
      issue(params, pfield,
            "expected a mapping of parameter names to values, found " + impl::describe_node(params));
      return;
    }
    if (given) {
      for (auto it = params.begin(); it != params.end(); ++it) {
        const std::string key = key_name(it->first);
        if (std::find(names.begin(), names.end(), key) == names.end()) {
          issue(it->first, child(pfield, key),
                "unknown parameter of family " + std::string(block.family->name()) +
                    "; expected one of: " + join(names) + suggestion(key, names));
        }
      }
    }
    std::vector<ParamSpec> sorted = specs;
    std::sort(sorted.begin(), sorted.end(),
              [](const ParamSpec& a, const ParamSpec& b) { return a.name < b.name; });
    std::size_t points = 1;
    for (const ParamSpec& spec : sorted) {
      const YAML::Node value = given ? params[spec.name] : YAML::Node();
      const std::string vfield = child(pfield, spec.name);
      if (!value.IsDefined() || value.IsNull()) {
        if (!spec.default_value) {
          issue(given ? params : node, vfield,
                "missing field: required parameter, expected " + a_type(spec.type) +
                    (spec.description.empty() ? "" : " (" + spec.description + ")"));
          continue;
        }
        block.sweep.emplace_back(spec.name, std::vector<ParamValue>{*spec.default_value});
        continue;
      }
      if (auto values = read_param(value, spec, vfield)) {
        points *= values->size();
        block.sweep.emplace_back(spec.name, std::move(*values));
      }
    }
    if (points > kMaxPoints) {
      issue(given ? params : node, pfield,
            "the sweep has " + std::to_string(points) + " points; expected at most " +
                std::to_string(kMaxPoints));
    }
  }

  void check_variant_patterns(const std::vector<YAML::Node>& patterns, const std::string& field,
                              const BenchmarkBlock& block) {
    // Variants may depend on the parameters and the space: gather them over (a bounded part of)
    // the sweep, so that a typo in a pattern is caught here rather than silently running nothing.
    std::vector<std::string> offered;
    const auto points = block.expand();
    const std::size_t limit = std::min<std::size_t>(points.size(), 256);
    for (ExecSpaceKind space : block.spaces) {
      workloads::RunContext ctx;
      ctx.space = space;
      ctx.threads = block.threads.empty() ? 1 : block.threads.front();
      for (std::size_t i = 0; i < limit; ++i) {
        for (const auto& v : block.family->variants(points[i], ctx)) {
          if (std::find(offered.begin(), offered.end(), v.name) == offered.end()) offered.push_back(v.name);
        }
      }
    }
    for (const auto& p : patterns) {
      if (!p.IsScalar()) continue;
      const bool any = std::any_of(offered.begin(), offered.end(),
                                   [&](const std::string& name) { return glob_match(p.Scalar(), name); });
      if (!any) {
        issue(p, field,
              "variant pattern '" + p.Scalar() + "' matches no variant of " +
                  std::string(block.family->name()) + "; expected one of: " + join(offered) +
                  suggestion(p.Scalar(), offered));
      }
    }
  }

  std::string path_;
  LoadOptions options_;
  std::vector<ConfigIssue> issues_;
};

}  // namespace

Config parse_config(std::string_view text, const std::string& path, const LoadOptions& options) {
  try {
    return Loader(path, options).load(text);
  } catch (const YAML::Exception& e) {
    // A node a check did not expect: an input error with its place, never an abort.
    const SourceLocation where = e.mark.is_null() ? SourceLocation{path, 0, 0}
                                                  : SourceLocation{path, e.mark.line + 1, e.mark.column + 1};
    throw ConfigError({{where, "(yaml)", "cannot read this part of the config: " + e.msg}});
  }
}

Config load_config(const std::string& path, const LoadOptions& options) {
  auto unreadable = [&](const std::string& why) {
    ConfigIssue issue;
    issue.where.file = path;
    issue.field = "(file)";
    issue.message = "cannot read the file: " + why;
    return ConfigError({issue});
  };
  // A directory opens as an ifstream on Linux and reads as empty: say what it is instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw unreadable("it is a directory, expected a YAML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw unreadable(std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw unreadable(std::strerror(errno));
  return parse_config(text.str(), path, options);
}

std::vector<int> parse_thread_list(std::string_view text, int max_threads) {
  std::vector<int> out;
  std::string item;
  std::stringstream stream{std::string(text)};
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    int value = 0;
    if (item == "max") {
      value = max_threads;
    } else {
      std::size_t used = 0;
      try {
        value = std::stoi(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || item.empty() || value < 1 || value > kMaxThreads) {
        throw std::invalid_argument("expected thread counts (1.." + std::to_string(kMaxThreads) +
                                    ") or 'max' separated by commas, found '" + item + "'");
      }
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  if (out.empty()) throw std::invalid_argument("expected at least one thread count");
  return out;
}

}  // namespace tfbench::harness
