#include "common/check.hpp"

#include "common/random.hpp"
#include "tfbench/workloads/testing.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tfbench::workloads {
namespace testing {
namespace {
std::atomic<int> g_fault_depth{0};
}
ScopedOutputFault::ScopedOutputFault() {
  ++g_fault_depth;
}
ScopedOutputFault::~ScopedOutputFault() {
  --g_fault_depth;
}
bool output_fault_armed() {
  return g_fault_depth.load() > 0;
}
}  // namespace testing

namespace {
/// One element moved by 1% (or by 1 from zero): far outside every family's tolerance.
void perturb(std::vector<double>& values) {
  if (values.empty()) return;
  double& x = values[values.size() / 2];
  x = x == 0.0 ? 1.0 : x * 1.01;
}

std::string format_error(double e) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", e);
  return buf;
}
}  // namespace

template <>
double tolerance_for<double>(double terms) {
  // Inputs are positive and well scaled: rounding grows at most linearly in the terms summed.
  return std::max(1e-13, 8.0 * terms * std::numeric_limits<double>::epsilon());
}
template <>
double tolerance_for<float>(double terms) {
  return std::max(1e-5, 8.0 * terms * std::numeric_limits<float>::epsilon());
}

CheckResult compare_outputs(std::vector<double> actual, const std::vector<double>& ref, double tolerance,
                            const std::string& what, double floor) {
  CheckResult result;
  result.tolerance = tolerance;
  if (actual.size() != ref.size()) {
    result.passed = false;
    result.max_rel_error = INFINITY;
    result.message = what + ": " + std::to_string(actual.size()) + " values compared against " +
                     std::to_string(ref.size()) + " reference values";
    return result;
  }
  if (testing::output_fault_armed()) perturb(actual);
  result.max_rel_error = max_relative_error(actual.data(), ref.data(), ref.size(), floor);
  result.passed = result.max_rel_error <= tolerance;
  result.message = what + " (" + std::to_string(ref.size()) + " values; max relative error " +
                   format_error(result.max_rel_error) + (result.passed ? " <= " : " > ") + "tolerance " +
                   format_error(tolerance) + ")";
  return result;
}

CheckResult compare_counts(double actual, double expected, const std::string& what) {
  std::vector<double> a{actual};
  return compare_outputs(std::move(a), {expected}, 0.0, what, 1.0);
}

}  // namespace tfbench::workloads
