#pragma once
// A workload family for harness tests: every parameter type, a required parameter, choices and
// bounds, and variants of every kind (one unavailable when `flag` is set). It never runs work.

#include "tfbench/workloads/family.hpp"

#include <memory>

namespace tfbench::harness::testing {

class FakeFamily final : public workloads::Family {
 public:
  std::string_view name() const override { return "fake"; }
  std::string_view description() const override { return "test family"; }
  std::vector<workloads::ParamSpec> parameters() const override {
    using workloads::ParamSpec;
    using workloads::ParamType;
    using workloads::ParamValue;
    ParamSpec n{"n", ParamType::Int, "matrix size", std::nullopt};
    n.min = 1;
    n.max = 1000;
    ParamSpec scale{"scale", ParamType::Double, "a factor", ParamValue{1.0}};
    scale.min = 0.0;
    ParamSpec mode{"mode", ParamType::String, "how", ParamValue{std::string("fast")}};
    mode.choices = {"fast", "slow"};
    ParamSpec flag{"flag", ParamType::Bool, "a switch", ParamValue{false}};
    return {n, scale, mode, flag};
  }
  std::vector<workloads::VariantInfo> variants(const workloads::Params& params,
                                               const workloads::RunContext&) const override {
    using workloads::VariantKind;
    std::optional<std::string> off;
    if (params.has("flag") && params.get_bool("flag")) off = "beta needs flag=false";
    return {{"engine:auto", VariantKind::Engine, "tfbench", "auto", std::nullopt},
            {"peer:alpha", VariantKind::Peer, "alpha", "", std::nullopt},
            {"peer:beta", VariantKind::Peer, "beta", "", off}};
  }
  std::unique_ptr<workloads::Instance> instantiate(const workloads::Params&, const std::string&,
                                                   const workloads::RunContext&) const override {
    throw workloads::WorkloadError("fake family instances are not runnable");
  }
};

inline const workloads::Family* fake_family() {
  static const FakeFamily family;
  return &family;
}

}  // namespace tfbench::harness::testing
