#pragma once
// The variants of the ad family.

#include "ad/ad_problem.hpp"

#include <memory>

namespace tfbench::workloads::autodiff {

/// engine:tape (no_grad false) or engine:no_grad (see engine_ad.cpp).
std::unique_ptr<Instance> make_engine_ad(const AdCase& c, const RunContext& ctx, bool no_grad);
std::unique_ptr<Instance> make_blas_ad(const AdCase& c, const RunContext& ctx);

}  // namespace tfbench::workloads::autodiff
