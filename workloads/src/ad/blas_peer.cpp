// peer:blas: the same loss and its gradients written by hand with OpenBLAS/LAPACK at the worker's
// thread budget: what a careful programmer writes without AD. Chain: the forward keeps every
// intermediate Z_k; backward runs dW_k = Z_{k-1}^T G_k and G_{k-1} = G_k W_k^T. Solve: getrf +
// getrs forward, then gB = A^-T G (getrs 'T' on the saved LU) and gA = -gB X^T (dgemm).
// pass=forward runs the forward part only.

#include "ad/ad_peers.hpp"
#include "common/blas_threads.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <numeric>

namespace tfbench::workloads::autodiff {
namespace {

void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double* c, int ldc) {
  cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
              a, lda, b, ldb, 0.0, c, ldc);
}

double dot_sum(const std::vector<double>& z, const std::vector<double>& g) {
  return std::inner_product(z.begin(), z.end(), g.begin(), 0.0);
}

class BlasAd final : public Instance {
 public:
  BlasAd(const AdCase& c, const RunContext& ctx)
      : case_(c), threads_(ctx.threads), operands_(make_operands(c, ctx.seed)), probes_(gradient_probes(c)) {
    const auto shapes = operand_shapes(c);
    for (std::size_t i = 0; i + 1 < shapes.size(); ++i) grads_.emplace_back(operands_[i].size());
    const std::size_t n = static_cast<std::size_t>(c.n);
    if (c.kind == "chain") {
      z_.assign(static_cast<std::size_t>(c.depth) + 1, std::vector<double>(n * n));
      g_.assign(2, std::vector<double>(n * n));
    } else {
      lu_.resize(n * n);
      ipiv_.resize(n);
      z_.assign(1, std::vector<double>(n * static_cast<std::size_t>(c.nrhs)));
      g_.assign(1, std::vector<double>(n * static_cast<std::size_t>(c.nrhs)));
    }
  }

  CheckResult check() override {
    run();
    if (case_.pass == "forward") return check_loss(case_, operands_, loss_);
    std::vector<double> values;
    for (const Probe& p : probes_) values.push_back(grads_[static_cast<std::size_t>(p.leaf)][p.element]);
    return check_gradients(case_, operands_, probes_, values);
  }

  void run() override {
    ScopedBlasThreads blas(threads_);
    if (case_.kind == "chain") {
      chain();
    } else {
      solve();
    }
  }

  Work work() const override { return pass_work(case_); }

 private:
  void chain() {
    const int n = case_.n, d = case_.depth;
    const std::vector<double>& g = operands_.back();
    // Z_0 = X is used in place; Z_k = Z_{k-1} W_k.
    const double* prev = operands_[0].data();
    for (int k = 1; k <= d; ++k) {
      gemm(false, false, n, n, n, 1.0, prev, n, operands_[static_cast<std::size_t>(k)].data(), n,
           z_[k].data(), n);
      prev = z_[k].data();
    }
    loss_ = dot_sum(z_[static_cast<std::size_t>(d)], g);
    if (case_.pass == "forward") return;
    // dL/dZ_d = G; for k = d..1: dW_k = Z_{k-1}^T G_k, G_{k-1} = G_k W_k^T (G_0 = dX).
    std::copy(g.begin(), g.end(), g_[0].begin());
    for (int k = d; k >= 1; --k) {
      const double* zk1 = k == 1 ? operands_[0].data() : z_[static_cast<std::size_t>(k - 1)].data();
      const std::vector<double>& gk = g_[static_cast<std::size_t>((d - k) % 2)];
      gemm(true, false, n, n, n, 1.0, zk1, n, gk.data(), n, grads_[static_cast<std::size_t>(k)].data(), n);
      double* next = k == 1 ? grads_[0].data() : g_[static_cast<std::size_t>((d - k + 1) % 2)].data();
      gemm(false, true, n, n, n, 1.0, gk.data(), n, operands_[static_cast<std::size_t>(k)].data(), n, next,
           n);
    }
  }

  void solve() {
    const int n = case_.n, k = case_.nrhs;
    const std::vector<double>& g = operands_.back();
    std::copy(operands_[0].begin(), operands_[0].end(), lu_.begin());
    std::vector<double>& x = z_[0];
    std::copy(operands_[1].begin(), operands_[1].end(), x.begin());
    LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, lu_.data(), n, ipiv_.data());
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, k, lu_.data(), n, ipiv_.data(), x.data(), n);
    loss_ = dot_sum(x, g);
    if (case_.pass == "forward") return;
    // gB = A^-T G (the saved LU), gA = -gB X^T.
    std::vector<double>& gb = grads_[1];
    std::copy(g.begin(), g.end(), gb.begin());
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, k, lu_.data(), n, ipiv_.data(), gb.data(), n);
    gemm(false, true, n, n, k, -1.0, gb.data(), n, x.data(), n, grads_[0].data(), n);
  }

  AdCase case_;
  int threads_;
  std::vector<std::vector<double>> operands_;
  std::vector<Probe> probes_;
  std::vector<std::vector<double>> grads_, z_, g_;
  std::vector<double> lu_;
  std::vector<lapack_int> ipiv_;
  double loss_ = 0.0;
};

}  // namespace

std::unique_ptr<Instance> make_blas_ad(const AdCase& c, const RunContext& ctx) {
  return std::make_unique<BlasAd>(c, ctx);
}

}  // namespace tfbench::workloads::autodiff
