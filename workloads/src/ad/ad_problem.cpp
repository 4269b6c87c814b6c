#include "ad/ad_problem.hpp"

#include "common/check.hpp"
#include "common/random.hpp"

#include <cmath>

namespace tfbench::workloads::autodiff {
namespace {

using LMat = std::vector<long double>;

/// C (r x c) = A (r x k) B (k x c), column-major, long double.
LMat matmul(const LMat& a, const LMat& b, int r, int k, int c) {
  LMat out(static_cast<std::size_t>(r) * c, 0.0L);
  for (int j = 0; j < c; ++j)
    for (int l = 0; l < k; ++l) {
      const long double blj = b[static_cast<std::size_t>(j) * k + l];
      for (int i = 0; i < r; ++i)
        out[static_cast<std::size_t>(j) * r + i] += a[static_cast<std::size_t>(l) * r + i] * blj;
    }
  return out;
}

/// X = A^-1 B by Gaussian elimination with partial pivoting, long double.
LMat solve(LMat a, LMat b, int n, int k) {
  for (int p = 0; p < n; ++p) {
    int piv = p;
    for (int i = p + 1; i < n; ++i)
      if (std::fabs(a[static_cast<std::size_t>(p) * n + i]) >
          std::fabs(a[static_cast<std::size_t>(p) * n + piv]))
        piv = i;
    if (piv != p) {
      for (int j = 0; j < n; ++j)
        std::swap(a[static_cast<std::size_t>(j) * n + p], a[static_cast<std::size_t>(j) * n + piv]);
      for (int j = 0; j < k; ++j)
        std::swap(b[static_cast<std::size_t>(j) * n + p], b[static_cast<std::size_t>(j) * n + piv]);
    }
    const long double d = a[static_cast<std::size_t>(p) * n + p];
    for (int i = p + 1; i < n; ++i) {
      const long double f = a[static_cast<std::size_t>(p) * n + i] / d;
      for (int j = p; j < n; ++j)
        a[static_cast<std::size_t>(j) * n + i] -= f * a[static_cast<std::size_t>(j) * n + p];
      for (int j = 0; j < k; ++j)
        b[static_cast<std::size_t>(j) * n + i] -= f * b[static_cast<std::size_t>(j) * n + p];
    }
  }
  for (int j = 0; j < k; ++j)
    for (int i = n - 1; i >= 0; --i) {
      long double s = b[static_cast<std::size_t>(j) * n + i];
      for (int l = i + 1; l < n; ++l)
        s -= a[static_cast<std::size_t>(l) * n + i] * b[static_cast<std::size_t>(j) * n + l];
      b[static_cast<std::size_t>(j) * n + i] = s / a[static_cast<std::size_t>(i) * n + i];
    }
  return b;
}

long double loss(const AdCase& c, const std::vector<LMat>& ops) {
  const int n = c.n;
  LMat z;
  int cols = n;
  if (c.kind == "chain") {
    z = ops[0];
    for (int d = 1; d <= c.depth; ++d) z = matmul(z, ops[static_cast<std::size_t>(d)], n, n, n);
  } else {
    z = solve(ops[0], ops[1], n, c.nrhs);
    cols = c.nrhs;
  }
  const LMat& g = ops.back();
  long double sum = 0.0L;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n) * cols; ++i) sum += z[i] * g[i];
  return sum;
}

std::vector<LMat> widen(const std::vector<std::vector<double>>& operands) {
  std::vector<LMat> out;
  for (const auto& v : operands) out.emplace_back(v.begin(), v.end());
  return out;
}

}  // namespace

std::vector<ParamSpec> ad_params() {
  return {string_param("kind", "chain: X W_1 ... W_d; solve: A^-1 B", "chain", {"chain", "solve"}),
          string_param("pass", "forward: the forward pass alone; forward_backward: forward then backward",
                       "forward_backward", {"forward", "forward_backward"}),
          int_param("n", "matrix size", 64, 2, 4096), int_param("depth", "matrices W of a chain", 4, 1, 64),
          int_param("nrhs", "columns of B of a solve", 4, 1, 4096)};
}

AdCase read_ad_case(const ParamReader& p) {
  AdCase c;
  c.kind = p.get_string("kind");
  c.pass = p.get_string("pass");
  c.n = static_cast<int>(p.get_int("n"));
  c.depth = static_cast<int>(p.get_int("depth"));
  c.nrhs = static_cast<int>(p.get_int("nrhs"));
  return c;
}

std::vector<std::pair<int, int>> operand_shapes(const AdCase& c) {
  if (c.kind == "chain")
    return std::vector<std::pair<int, int>>(static_cast<std::size_t>(c.depth) + 2, {c.n, c.n});
  return {{c.n, c.n}, {c.n, c.nrhs}, {c.n, c.nrhs}};
}

std::vector<std::vector<double>> make_operands(const AdCase& c, std::uint64_t seed) {
  const auto shapes = operand_shapes(c);
  std::vector<std::vector<double>> out;
  for (std::size_t o = 0; o < shapes.size(); ++o) {
    const auto [r, cols] = shapes[o];
    std::vector<double> v(static_cast<std::size_t>(r) * cols);
    const std::uint64_t s = derive_seed(seed, 601 + o);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = random_at(s, i);
    const bool is_w = c.kind == "chain" && o >= 1 && o + 1 < shapes.size();
    if (is_w) {
      for (double& x : v) x /= c.n;  // keeps every product O(1)
    }
    if (c.kind == "solve" && o == 0) {
      for (int i = 0; i < c.n; ++i) v[static_cast<std::size_t>(i) * c.n + i] += 1.5 * c.n;  // dominant
    }
    out.push_back(std::move(v));
  }
  return out;
}

Work forward_work(const AdCase& c) {
  const double n = c.n;
  if (c.kind == "chain") {
    // d GEMMs, the product with G, the sum; bytes: each operation's operands and result once.
    return {c.depth * 2.0 * n * n * n + 2.0 * n * n, 8.0 * (c.depth * 3.0 * n * n + 3.0 * n * n + n * n)};
  }
  const double k = c.nrhs;
  const double getrf = 2.0 * n * n * n / 3.0 - n * n / 2.0 + 5.0 * n / 6.0, getrs = k * (2.0 * n * n - n);
  return {getrf + getrs + 2.0 * n * k, 8.0 * (n * n + 2.0 * n * k + 3.0 * n * k + n * k)};
}

Work backward_work(const AdCase& c) {
  const double n = c.n;
  if (c.kind == "chain") {
    // dZ = G (one product), then per GEMM two GEMMs (gradients of both operands).
    return {n * n + c.depth * 4.0 * n * n * n, 8.0 * (2.0 * n * n + c.depth * 6.0 * n * n)};
  }
  const double k = c.nrhs;
  // dX = G, gB = A^-T dX (getrs with the saved LU), gA = -gB X^T (a GEMM).
  return {n * k + k * (2.0 * n * n - n) + 2.0 * n * n * k,
          8.0 * (2.0 * n * k + n * n + 2.0 * n * k + 2.0 * n * k + n * n)};
}

Work pass_work(const AdCase& c) {
  Work w = forward_work(c);
  // Footprint: the leaves and G, the intermediates the tape keeps (chain: one n x n product per W;
  // solve: the LU and X) and, with a backward pass, a gradient per leaf.
  double leaves = 0;
  for (const auto& [rows, cols] : operand_shapes(c)) leaves += static_cast<double>(rows) * cols;
  const double n = c.n;
  const double kept = c.kind == "chain" ? c.depth * n * n : n * n + n * c.nrhs;
  w.working_set_bytes = 8.0 * (leaves + kept);
  if (c.pass == "forward_backward") {
    const Work b = backward_work(c);
    w.flops += b.flops;
    w.bytes += b.bytes;
    w.working_set_bytes += 8.0 * leaves;
  }
  return w;
}

int recorded_ops(const AdCase& c) {
  return c.kind == "chain" ? c.depth + 2 : 3;
}

std::vector<Probe> gradient_probes(const AdCase& c) {
  const auto shapes = operand_shapes(c);
  std::vector<Probe> probes;
  for (std::size_t leaf = 0; leaf + 1 < shapes.size(); ++leaf) {
    const std::size_t size = static_cast<std::size_t>(shapes[leaf].first) * shapes[leaf].second;
    for (std::size_t e : {std::size_t{0}, size / 2 + 1, size - 1})
      probes.push_back({static_cast<int>(leaf), std::min(e, size - 1)});
  }
  return probes;
}

CheckResult check_loss(const AdCase& c, const std::vector<std::vector<double>>& operands, double value) {
  const long double ref = loss(c, widen(operands));
  const double terms = c.kind == "chain" ? static_cast<double>(c.depth) * c.n + static_cast<double>(c.n) * c.n
                                         : 4.0 * c.n + static_cast<double>(c.n) * c.nrhs;
  return compare_outputs({value}, {static_cast<double>(ref)}, tolerance_for<double>(terms),
                         "forward loss against the long-double loss");
}

CheckResult check_gradients(const AdCase& c, const std::vector<std::vector<double>>& operands,
                            const std::vector<Probe>& probes, const std::vector<double>& gradients) {
  std::vector<LMat> ops = widen(operands);
  std::vector<double> fd;
  for (const Probe& p : probes) {
    long double& x = ops[static_cast<std::size_t>(p.leaf)][p.element];
    const long double x0 = x;
    const long double h = (c.kind == "chain" ? 1e-3L : 1e-4L) * std::max(std::fabs(x0), 1.0L);
    x = x0 + h;
    const long double up = loss(c, ops);
    x = x0 - h;
    const long double down = loss(c, ops);
    x = x0;
    fd.push_back(static_cast<double>((up - down) / (2.0L * h)));
  }
  return compare_outputs(gradients, fd, 1e-6,
                         std::to_string(probes.size()) +
                             " gradient coordinates against long-double central "
                             "differences of the loss",
                         1e-12);
}

}  // namespace tfbench::workloads::autodiff
