#pragma once
// Fault injection for tests and the perf-regression gate (docs/cli.md): the environment variable
// TFBENCH_FAULT_INJECT holds rules separated by ';', each matched against case ids by glob:
//   crash:<case-glob>               the worker raises SIGSEGV just before checking that case
//   abort:<case-glob>               the worker calls abort() (SIGABRT) just before that case
//   delay:<case-glob>:<microseconds> a busy-wait after every timed run of that case (a slowdown)

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfbench::harness {

inline constexpr const char* kFaultInjectVariable = "TFBENCH_FAULT_INJECT";

class FaultPlan {
 public:
  enum class Kind { Crash, Abort, Delay };
  struct Rule {
    Kind kind = Kind::Crash;
    std::string glob;
    double delay_us = 0.0;
  };

  /// Parses a rule list; throws std::invalid_argument saying which rule is malformed.
  static FaultPlan parse(std::string_view spec);
  /// The plan in TFBENCH_FAULT_INJECT (empty when unset).
  static FaultPlan from_environment();

  bool empty() const { return rules_.empty(); }
  const std::vector<Rule>& rules() const { return rules_; }
  /// The crash or abort to inject before `case_id`, if any.
  std::optional<Kind> fault_before(const std::string& case_id) const;
  /// Microseconds of busy-wait to add to each timed run of `case_id` (0: none).
  double delay_us(const std::string& case_id) const;

 private:
  std::vector<Rule> rules_;
};

}  // namespace tfbench::harness
