#pragma once
// The variants of the ad family.

#include "ad/ad_problem.hpp"

#include <memory>

namespace tfbench::workloads::autodiff {

std::unique_ptr<Instance> make_blas_ad(const AdCase& c, const RunContext& ctx);

}  // namespace tfbench::workloads::autodiff
