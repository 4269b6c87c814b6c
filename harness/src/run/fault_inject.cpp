#include "tfbench/harness/fault_inject.hpp"

#include "tfbench/harness/text.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tfbench::harness {

FaultPlan FaultPlan::parse(std::string_view spec) {
  FaultPlan plan;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(';', start), spec.size());
    const std::string rule(spec.substr(start, end - start));
    start = end + 1;
    if (rule.empty()) continue;
    const std::size_t colon = rule.find(':');
    const std::string kind = rule.substr(0, colon);
    const std::string rest = colon == std::string::npos ? std::string() : rule.substr(colon + 1);
    Rule r;
    if (kind == "crash" || kind == "abort") {
      r.kind = kind == "crash" ? Kind::Crash : Kind::Abort;
      r.glob = rest;
    } else if (kind == "delay") {
      // The glob may contain ':' (variant names do): the microseconds follow the last one.
      const std::size_t last = rest.rfind(':');
      if (last != std::string::npos) {
        r.glob = rest.substr(0, last);
        char* tail = nullptr;
        const std::string number = rest.substr(last + 1);
        r.delay_us = std::strtod(number.c_str(), &tail);
        if (number.empty() || *tail != '\0' || !std::isfinite(r.delay_us) || r.delay_us <= 0) r.glob.clear();
      }
      r.kind = Kind::Delay;
    } else {
      throw std::invalid_argument(
          std::string(kFaultInjectVariable) + ": unknown rule '" + rule +
          "'; expected crash:<case-glob>, abort:<case-glob> or delay:<case-glob>:<microseconds>");
    }
    if (r.glob.empty()) {
      throw std::invalid_argument(
          std::string(kFaultInjectVariable) + ": malformed rule '" + rule +
          "'; expected crash:<case-glob>, abort:<case-glob> or delay:<case-glob>:<microseconds>"
          " with microseconds > 0");
    }
    plan.rules_.push_back(std::move(r));
  }
  return plan;
}

FaultPlan FaultPlan::from_environment() {
  const char* value = std::getenv(kFaultInjectVariable);
  return value ? parse(value) : FaultPlan();
}

std::optional<FaultPlan::Kind> FaultPlan::fault_before(const std::string& case_id) const {
  for (const auto& r : rules_) {
    if (r.kind != Kind::Delay && glob_match(r.glob, case_id)) return r.kind;
  }
  return std::nullopt;
}

double FaultPlan::delay_us(const std::string& case_id) const {
  double total = 0.0;
  for (const auto& r : rules_) {
    if (r.kind == Kind::Delay && glob_match(r.glob, case_id)) total += r.delay_us;
  }
  return total;
}

}  // namespace tfbench::harness
