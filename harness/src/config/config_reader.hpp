#pragma once
// The value readers of config loading (private to harness/src/config). Each reads one YAML node,
// checks it and records a ConfigIssue (file:line:column, field, what was expected and what was
// found) instead of throwing, so that one load reports every problem of a file. config.cpp reads
// the document and its benchmark blocks with them; config_reader.cpp holds the generic readers
// (keys, numbers, ranges, thread and space lists), param_reader.cpp the family parameters.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tfbench/harness/config.hpp"

namespace tfbench::harness::impl {

inline constexpr std::size_t kMaxRangeValues = 100000;
inline constexpr std::size_t kMaxPoints = 1000000;
inline constexpr int kMaxThreads = 4096;
inline constexpr double kMaxCaseTimeout = 1e6;  // seconds: about 11 days

/// " (did you mean 'x'?)" for the candidate nearest to `name`, or nothing.
std::string suggestion(const std::string& name, const std::vector<std::string>& candidates);
/// "an integer", "a number", "a boolean", "a string".
std::string a_type(workloads::ParamType type);
std::string format_value(double v);
/// `values` without repeats, in first-seen order.
std::vector<int> without_repeats(std::vector<int> values);

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

/// The issues of one file and the readers that add to them. A reader returns nullopt (or false)
/// after recording why.
class ConfigReader {
 public:
  ConfigReader(std::string path, const LoadOptions& options);

 protected:
  // ---- places and issues
  SourceLocation at(const YAML::Node& node) const;
  void add(SourceLocation where, std::string field, std::string message);
  void issue(const YAML::Node& node, const std::string& field, const std::string& message);
  static std::string child(const std::string& parent, const std::string& key);
  static std::string key_name(const YAML::Node& key);

  // ---- keys (config_reader.cpp)
  /// Flags every repeated key of every mapping in the document: yaml-cpp keeps both and a lookup
  /// finds the first, so a repeated key would otherwise silently lose its second value.
  void flag_duplicate_keys(const YAML::Node& node, const std::string& field);
  /// Flags keys outside `allowed` (with the nearest allowed name); repeated keys are flagged once,
  /// for the whole document, by flag_duplicate_keys.
  void check_keys(const YAML::Node& map, const std::string& field, const std::vector<std::string>& allowed);

  // ---- numbers, ranges, thread and space lists (config_reader.cpp)
  std::optional<double> read_number(const YAML::Node& node, const std::string& field, double lo, double hi,
                                    bool lo_inclusive, const std::string& what);
  std::optional<std::int64_t> read_integer(const YAML::Node& node, const std::string& field, std::int64_t lo,
                                           std::int64_t hi, const std::string& what);
  /// Expands a range mapping; nullopt (with issues) when it is malformed.
  std::optional<std::vector<double>> read_range(const YAML::Node& node, const std::string& field,
                                                const RangeSpec& spec);
  std::optional<std::vector<int>> read_threads(const YAML::Node& node, const std::string& field);
  std::optional<std::vector<ExecSpaceKind>> read_spaces(const YAML::Node& node, const std::string& field);
  /// The timing settings shared by `defaults` and benchmark blocks.
  void read_common(const YAML::Node& map, const std::string& field, FileDefaults& into);

  // ---- family parameters (param_reader.cpp)
  /// The values one parameter sweeps: a scalar, a list, or a numeric range, each checked.
  std::optional<std::vector<workloads::ParamValue>> read_param(const YAML::Node& node,
                                                               const workloads::ParamSpec& spec,
                                                               const std::string& field);

  std::string path_;
  LoadOptions options_;
  std::vector<ConfigIssue> issues_;

 private:
  /// Calls `read_one` for `node`, or for each item of a list; false (with an issue saying
  /// `empty_list`) for an empty list.
  bool each_item(const YAML::Node& node, const std::string& field, const char* empty_list,
                 const std::function<void(const YAML::Node&)>& read_one);
  /// One end of a range (`from` or `to` of `range`); nullopt (with an issue) when missing or wrong.
  std::optional<double> range_endpoint(const YAML::Node& range, const YAML::Node& end,
                                       const std::string& field, const char* key, const RangeSpec& spec);
  /// A range's `times` or `step` (`key`): a number above `above` (`what` says so), an integer for an
  /// integer range; nullopt (with an issue) otherwise.
  std::optional<double> range_increment(const YAML::Node& node, const std::string& field, const char* key,
                                        const char* what, double above, const RangeSpec& spec);
  /// `from` times the factor, then times it again, up to `to`.
  std::optional<std::vector<double>> geometric_range(const YAML::Node& range, const std::string& field,
                                                     double from, double to, const RangeSpec& spec);
  /// `from`, `from + step`, ... up to `to`.
  std::optional<std::vector<double>> arithmetic_range(const YAML::Node& range, const std::string& field,
                                                      double from, double to, const RangeSpec& spec);
  /// One scalar as a value of `spec`'s type, with its choices and bounds checked.
  std::optional<workloads::ParamValue> read_param_value(const YAML::Node& node,
                                                        const workloads::ParamSpec& spec,
                                                        const std::string& field);
  bool check_value(const YAML::Node& node, const workloads::ParamSpec& spec, const std::string& field,
                   const workloads::ParamValue& value);
};

}  // namespace tfbench::harness::impl
