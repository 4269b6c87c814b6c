#pragma once
// A ceiling measured again as an Instance the harness times beside a case's variants
// (ceilings.hpp, bandwidth_reference and peak_reference): each run times itself between barriers,
// as the ceiling is measured, and reports that time (self_timed_seconds); the check is that it
// measured something.

#include <optional>

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads::impl {

class ReferenceInstance : public Instance {
 public:
  CheckResult check() override {
    run();
    CheckResult r;
    r.passed = last_s_ > 0;
    r.message = "a positive time for the ceiling's kernel";
    return r;
  }
  void run() override { last_s_ = timed_run(); }
  /// Between barriers, as the ceiling is timed: waking the threads is not the ceiling.
  std::optional<double> self_timed_seconds() const override { return last_s_; }

 protected:
  /// One run's seconds by the kernel's own clock.
  virtual double timed_run() = 0;

 private:
  double last_s_ = 0.0;
};

}  // namespace tfbench::workloads::impl
