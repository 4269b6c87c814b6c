#pragma once
// Comparison of a variant's output with a reference: every family's check() ends here, so the
// error measure and the test-only fault injection are the same for all of them.

#include "tfbench/workloads/family.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tfbench::workloads {

/// Relative tolerance of a check in type T after `terms` accumulated products per element.
template <class T>
double tolerance_for(double terms);

/// Compares `actual` with `ref` element by element (max |x - ref| / max(|ref|, floor)). When the
/// test-only output fault is armed, one element of `actual` is perturbed first.
CheckResult compare_outputs(std::vector<double> actual, const std::vector<double>& ref, double tolerance,
                            const std::string& what, double floor = 1e-300);

/// A passed or failed check from a count the family verified itself (e.g. callbacks that ran).
CheckResult compare_counts(double actual, double expected, const std::string& what);

}  // namespace tfbench::workloads
