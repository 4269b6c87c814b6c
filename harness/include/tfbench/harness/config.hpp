#pragma once
// YAML run configurations (docs/configs.md): one or more benchmark blocks, each naming a workload
// family, its parameter sweep, variant filter, thread configurations and timing settings. Loading
// validates everything against the family's ParamSpecs and reports every problem with
// file:line:column, the field and what was expected.

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfbench::harness {

/// A place in a config file; line and column are 1-based (0: unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string to_string() const;  // "file:line:column"
};

/// One validation problem: where, which field (a path such as `benchmarks[0].params.n`), and what
/// was expected.
struct ConfigIssue {
  SourceLocation where;
  std::string field;
  std::string message;
  std::string to_string() const;  // "file:line:column: field: message"
};

/// Thrown when a config cannot be used; carries every issue found, not only the first.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<ConfigIssue> issues);
  const std::vector<ConfigIssue>& issues() const { return issues_; }

 private:
  std::vector<ConfigIssue> issues_;
};

/// Built-in defaults, used where neither the config nor the command line sets a value.
struct BuiltinDefaults {
  static constexpr int repetitions = 5;
  static constexpr double min_time = 0.05;  // seconds per sample
  static constexpr std::uint64_t seed = 1;
};

/// One benchmark block after validation: every sweep list expanded, `max` resolved.
struct BenchmarkBlock {
  SourceLocation where;   // the block's `family:` key
  std::size_t index = 0;  // position in the file's `benchmarks` list
  const workloads::Family* family = nullptr;
  /// Values of every parameter of the family (defaults included), ordered by parameter name.
  std::vector<std::pair<std::string, std::vector<workloads::ParamValue>>> sweep;
  std::vector<std::string> variant_patterns;  // globs; empty: every variant
  std::vector<int> threads;
  std::vector<ExecSpaceKind> spaces;
  int repetitions = BuiltinDefaults::repetitions;
  double min_time = BuiltinDefaults::min_time;
  std::optional<double> threshold_pct;
  std::optional<double> case_timeout;  // seconds per case, 0: no limit; unset: case_time_limit()'s default

  /// The cartesian product of the sweep: the first parameter (by name) varies slowest.
  std::vector<workloads::Params> expand() const;
  std::size_t point_count() const;
};

struct Config {
  std::string path;
  std::string text;
  std::optional<std::uint64_t> seed;  // `defaults.seed`
  std::vector<BenchmarkBlock> blocks;
};

struct LoadOptions {
  int max_threads = 1;  // what `max` in a thread list means (CPUs in tfbench's affinity mask)
  /// Families a config may name; empty: every family of the registry (tests pass their own).
  std::vector<const workloads::Family*> families;
};

/// Parses and validates `text` (named `path` in messages). Throws ConfigError.
Config parse_config(std::string_view text, const std::string& path, const LoadOptions& options);
/// Reads `path` and parses it. Throws ConfigError (an unreadable file is an issue too).
Config load_config(const std::string& path, const LoadOptions& options);

/// Parses a thread list as given to `--threads`: "1,2,max". Throws std::invalid_argument.
std::vector<int> parse_thread_list(std::string_view text, int max_threads);

}  // namespace tfbench::harness
