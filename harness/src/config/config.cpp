#include "tfbench/harness/config.hpp"

#include "config/config_reader.hpp"
#include "config/yaml_scalar.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/registry.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace tfbench::harness {

using workloads::Family;
using workloads::ParamSpec;
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

using impl::FileDefaults;
using impl::suggestion;

/// Reads one config document: its shape, the file's defaults, then each benchmark block (family,
/// timing settings, parameter sweep, variant patterns). Every issue is collected first; one
/// ConfigError then reports them all.
class Loader : impl::ConfigReader {
 public:
  using ConfigReader::ConfigReader;

  Config load(std::string_view text) {
    Config config;
    config.path = path_;
    config.text = std::string(text);
    const YAML::Node root = parse_document(config.text);  // const: reading a key must never insert it
    flag_duplicate_keys(root, "");
    check_keys(root, "", {"defaults", "benchmarks"});
    const FileDefaults defaults = read_file_defaults(root);
    config.seed = defaults.seed;
    read_benchmarks(root, defaults, config.blocks);
    if (!issues_.empty()) throw ConfigError(issues_);
    return config;
  }

 private:
  /// The document's root mapping; throws ConfigError when the text is no YAML, empty or not a mapping.
  YAML::Node parse_document(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      add({path_, e.mark.line + 1, e.mark.column + 1}, "(yaml)", "malformed YAML: " + e.msg);
      throw ConfigError(issues_);
    }
    if (!root.IsDefined() || root.IsNull()) {
      add({path_, 1, 1}, "(file)", "expected a mapping with a 'benchmarks' list; the file is empty");
      throw ConfigError(issues_);
    }
    if (!root.IsMap()) {
      issue(root, "(file)",
            "expected a mapping with keys 'defaults' and 'benchmarks', found " + impl::describe_node(root));
      throw ConfigError(issues_);
    }
    return root;
  }

  // ---- defaults

  /// The built-in defaults, overridden by the file's `defaults:`.
  FileDefaults read_file_defaults(const YAML::Node& root) {
    FileDefaults defaults;
    defaults.threads = impl::without_repeats({1, options_.max_threads});
    defaults.spaces = {default_device_space()};
    if (const YAML::Node d = root["defaults"]; d.IsDefined() && !d.IsNull()) read_defaults(d, defaults);
    return defaults;
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

  // ---- benchmark blocks

  /// The `benchmarks:` list; blocks with issues are left out (their issues are kept).
  void read_benchmarks(const YAML::Node& root, const FileDefaults& defaults,
                       std::vector<BenchmarkBlock>& blocks) {
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
        if (block) blocks.push_back(std::move(*block));
      }
    }
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
    read_family(node, field, block);
    read_block_settings(node, field, defaults, block);
    if (block.family) read_params(node, field, block);
    read_variants(node, field, issues_before, block);
    if (issues_.size() != issues_before) return std::nullopt;
    return block;
  }

  /// `family:`, one of the families a config may name.
  void read_family(const YAML::Node& node, const std::string& field, BenchmarkBlock& block) {
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
  }

  /// The block's timing settings: the file's defaults, overridden by the block's own.
  void read_block_settings(const YAML::Node& node, const std::string& field, const FileDefaults& defaults,
                           BenchmarkBlock& block) {
    FileDefaults settings = defaults;
    read_common(node, field, settings);
    block.threads = settings.threads;
    block.spaces = settings.spaces;
    block.repetitions = settings.repetitions;
    block.min_time = settings.min_time;
    block.threshold_pct = settings.threshold_pct;
    block.case_timeout = settings.case_timeout;
  }

  // ---- the parameter sweep

  /// `params:`, one sweep entry per parameter of the family (in name order): the values given, or
  /// the parameter's default.
  void read_params(const YAML::Node& node, const std::string& field, BenchmarkBlock& block) {
    const std::vector<ParamSpec> specs = block.family->parameters();
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
    if (given) flag_unknown_params(params, pfield, specs, *block.family);
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
                "missing field: required parameter, expected " + impl::a_type(spec.type) +
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
    if (points > impl::kMaxPoints) {
      issue(given ? params : node, pfield,
            "the sweep has " + std::to_string(points) + " points; expected at most " +
                std::to_string(impl::kMaxPoints));
    }
  }

  void flag_unknown_params(const YAML::Node& params, const std::string& pfield,
                           const std::vector<ParamSpec>& specs, const Family& family) {
    std::vector<std::string> names;
    for (const auto& s : specs) names.push_back(s.name);
    for (auto it = params.begin(); it != params.end(); ++it) {
      const std::string key = key_name(it->first);
      if (std::find(names.begin(), names.end(), key) == names.end()) {
        issue(it->first, child(pfield, key),
              "unknown parameter of family " + std::string(family.name()) +
                  "; expected one of: " + join(names) + suggestion(key, names));
      }
    }
  }

  // ---- variant patterns

  /// `variants:`, a name or glob or a list of them; checked against the family's variants only when
  /// the rest of the block is sound.
  void read_variants(const YAML::Node& node, const std::string& field, std::size_t issues_before,
                     BenchmarkBlock& block) {
    const YAML::Node variants = node["variants"];
    if (!variants.IsDefined()) return;
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
        issue(p, vfield, "expected a variant name or glob (e.g. 'peer:*'), found " + impl::describe_node(p));
        continue;
      }
      block.variant_patterns.push_back(p.Scalar());
    }
    if (block.family && issues_.size() == issues_before) check_variant_patterns(patterns, vfield, block);
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
        for (const auto& v : block.family->variant_names(points[i], ctx)) {
          if (std::find(offered.begin(), offered.end(), v) == offered.end()) offered.push_back(v);
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
      if (used != item.size() || item.empty() || value < 1 || value > impl::kMaxThreads) {
        throw std::invalid_argument("expected thread counts (1.." + std::to_string(impl::kMaxThreads) +
                                    ") or 'max' separated by commas, found '" + item + "'");
      }
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  if (out.empty()) throw std::invalid_argument("expected at least one thread count");
  return out;
}

}  // namespace tfbench::harness
