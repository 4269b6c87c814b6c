#pragma once
// One case of the ad family: a scalar loss of leaves, its counted work, and the checks.
//
//   kind: chain   Z = X W_1 ... W_d (n x n each; W scaled by 1/n so Z stays O(1)),
//                 L = sum(Z * G) with a constant G; leaves X, W_1..W_d
//   kind: solve   X = A^-1 B (A n x n diagonally dominant, B n x nrhs), L = sum(X * G);
//                 leaves A, B
//
// The forward pass is checked against the loss evaluated naively in long double; gradients are
// checked at sampled coordinates against central finite differences of that long-double loss (the
// chain loss is linear in each coordinate, so its differences are exact up to rounding; the solve
// loss is smooth and its truncation error stays near 1e-8 with the step used).

#include "common/param_specs.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tfbench::workloads::autodiff {

struct AdCase {
  std::string kind = "chain";  // "chain" or "solve"
  std::string pass = "forward_backward";
  int n = 64;
  int depth = 4;  // chain: matrices W
  int nrhs = 4;   // solve: columns of B
};

std::vector<ParamSpec> ad_params();
AdCase read_ad_case(const ParamReader& p);

/// Shapes of the leaves (rows, cols), in order, then of the constant G (last).
std::vector<std::pair<int, int>> operand_shapes(const AdCase& c);
/// Column-major values of every operand (leaves, then G) for a run seed.
std::vector<std::vector<double>> make_operands(const AdCase& c, std::uint64_t seed);

/// Counted work of one forward pass and of one backward pass.
Work forward_work(const AdCase& c);
Work backward_work(const AdCase& c);
/// The work of one iteration of the case's pass: the forward, plus the backward for forward_backward.
Work pass_work(const AdCase& c);
/// Engine operations one forward pass records (tape nodes of non-leaf values).
int recorded_ops(const AdCase& c);

/// One gradient coordinate: leaf index and column-major element index.
struct Probe {
  int leaf = 0;
  std::size_t element = 0;
};
/// Three coordinates per leaf, spread over it (first and last element included).
std::vector<Probe> gradient_probes(const AdCase& c);

/// Compares a forward loss with the long-double loss.
CheckResult check_loss(const AdCase& c, const std::vector<std::vector<double>>& operands, double loss);
/// Compares gradient values at `probes` with long-double central differences.
CheckResult check_gradients(const AdCase& c, const std::vector<std::vector<double>>& operands,
                            const std::vector<Probe>& probes, const std::vector<double>& gradients);

}  // namespace tfbench::workloads::autodiff
