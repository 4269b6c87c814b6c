// peer:permute_gemm: what a careful programmer writes by hand with BLAS. Binary keys: an operand
// whose free label is already first or last is used in place (as a matrix or its transpose, with
// the contracted labels in its own order); otherwise, or when its contracted order differs from the
// other operand's, it is permuted into scratch first; then one cblas_dgemm, whose operand order
// gives either output order without a final permute. N-ary (matrix chain) keys: the cheaper of (AB)C
// and A(BC), two GEMMs, transposed storage handled by the BLAS transpose flags. BLAS runs at the
// worker's thread budget; permutes are fanned out over it.

#include "common/blas_threads.hpp"
#include "common/fan_out.hpp"
#include "contraction_replay/replay_peers.hpp"

#include <cblas.h>

#include <algorithm>

namespace tfbench::workloads::contraction_replay {
namespace {

/// A logical rows x cols matrix over column-major storage, possibly transposed.
struct Mat {
  const double* data;
  bool trans;
  std::int64_t ld;
};

/// out (rows x cols, column-major, ld = rows) = X (rows x inner) Y (inner x cols).
void gemm(double* out, std::int64_t rows, std::int64_t cols, std::int64_t inner, const Mat& x, const Mat& y) {
  cblas_dgemm(CblasColMajor, x.trans ? CblasTrans : CblasNoTrans, y.trans ? CblasTrans : CblasNoTrans,
              static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(inner), 1.0, x.data,
              static_cast<int>(x.ld), y.data, static_cast<int>(y.ld), 0.0, out, static_cast<int>(rows));
}

/// Matrix `labels` ("pq": p rows, q columns, or its transpose "qp") as the logical (rows x cols).
Mat as_matrix(const OperandKey& op, const double* data, char rows, const std::map<char, std::int64_t>& e) {
  if (op.labels[0] == rows) return {data, false, e.at(op.labels[0])};
  return {data, true, e.at(op.labels[0])};
}

/// dst (compact in `to` order) = src (compact in `from.labels` order), permuted.
void permute(const OperandKey& from, const double* src, const std::string& to, double* dst,
             const std::map<char, std::int64_t>& e, int threads) {
  std::int64_t src_stride[3] = {0, 0, 0}, n[3];
  std::int64_t stride = 1;
  for (std::size_t a = 0; a < from.labels.size(); ++a) {
    const auto pos = to.find(from.labels[a]);
    src_stride[pos] = stride;
    stride *= from.shape[a];
  }
  for (int a = 0; a < 3; ++a) n[a] = e.at(to[static_cast<std::size_t>(a)]);
  fan_out(threads, n[2], [&](std::int64_t z) {
    double* d = dst + z * n[0] * n[1];
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x)
        d[y * n[0] + x] = src[x * src_stride[0] + y * src_stride[1] + z * src_stride[2]];
  });
}

class PermuteGemm final : public ReplayBase {
 public:
  PermuteGemm(const StreamSpec& spec, const RunContext& ctx) : ReplayBase(spec, ctx) {
    const auto sizes = max_elements(keys_);
    scratch_a_ = AlignedBuffer<double>(static_cast<std::size_t>(sizes[0]), ctx.threads);
    scratch_b_ =
        AlignedBuffer<double>(static_cast<std::size_t>(std::max(sizes[1], sizes.back())), ctx.threads);
    if (spec.kind == "nary") {
      std::int64_t t = 0;
      for (const auto& k : keys_) {
        const auto& e = k.extent;
        t = std::max({t, e.at('i') * e.at('k'), e.at('j') * e.at('l')});
      }
      scratch_b_ = AlignedBuffer<double>(static_cast<std::size_t>(t), ctx.threads);
    }
  }

 protected:
  void call(std::size_t q) override {
    ScopedBlasThreads blas(threads_);
    if (spec_.kind == "binary") {
      binary(key(q));
    } else {
      chain(key(q));
    }
  }

 private:
  void binary(const ContractionKey& k) {
    const auto& e = k.extent;
    const OperandKey& a = k.inputs[0];
    const OperandKey& b = k.inputs[1];
    auto contracted_of = [](const std::string& labels, char free) {
      std::string c;
      for (char x : labels)
        if (x != free) c += x;
      return c;
    };
    const bool a_grouped = a.labels.front() == 'i' || a.labels.back() == 'i';
    const bool b_grouped = b.labels.front() == 'l' || b.labels.back() == 'l';
    // The contracted order both matrices must share: A's if A can be used in place, else B's.
    const std::string co = a_grouped   ? contracted_of(a.labels, 'i')
                           : b_grouped ? contracted_of(b.labels, 'l')
                                       : "jk";
    const std::int64_t ni = e.at('i'), nl = e.at('l'), nk = e.at(co[0]) * e.at(co[1]);
    Mat ma{}, mb{};
    if (a.labels == "i" + co) {
      ma = {in_[0].data(), false, ni};
    } else if (a.labels == co + "i") {
      ma = {in_[0].data(), true, nk};
    } else {
      permute(a, in_[0].data(), "i" + co, scratch_a_.data(), e, threads_);
      ma = {scratch_a_.data(), false, ni};
    }
    if (b.labels == co + "l") {
      mb = {in_[1].data(), false, nk};
    } else if (b.labels == "l" + co) {
      mb = {in_[1].data(), true, nl};
    } else {
      permute(b, in_[1].data(), co + "l", scratch_b_.data(), e, threads_);
      mb = {scratch_b_.data(), false, nk};
    }
    if (k.output.labels == "il") {
      gemm(out_.data(), ni, nl, nk, ma, mb);
    } else {  // C^T = B^T A^T: the same operands with their transpose flags flipped, in swapped order
      gemm(out_.data(), nl, ni, nk, Mat{mb.data, !mb.trans, mb.ld}, Mat{ma.data, !ma.trans, ma.ld});
    }
  }

  void chain(const ContractionKey& k) {
    const auto& e = k.extent;
    const std::int64_t i = e.at('i'), j = e.at('j'), kk = e.at('k'), l = e.at('l');
    const Mat a = as_matrix(k.inputs[0], in_[0].data(), 'i', e);
    const Mat b = as_matrix(k.inputs[1], in_[1].data(), 'j', e);
    const Mat c = as_matrix(k.inputs[2], in_[2].data(), 'k', e);
    const bool left_first = i * j * kk + i * kk * l <= j * kk * l + i * j * l;
    double* t = scratch_b_.data();
    Mat x{}, y{};
    std::int64_t inner = 0;
    if (left_first) {  // T = A B (i x k), out = T C
      gemm(t, i, kk, j, a, b);
      x = {t, false, i};
      y = c;
      inner = kk;
    } else {  // T = B C (j x l), out = A T
      gemm(t, j, l, kk, b, c);
      x = a;
      y = {t, false, j};
      inner = j;
    }
    if (k.output.labels == "il") {
      gemm(out_.data(), i, l, inner, x, y);
    } else {
      gemm(out_.data(), l, i, inner, Mat{y.data, !y.trans, y.ld}, Mat{x.data, !x.trans, x.ld});
    }
  }

  AlignedBuffer<double> scratch_a_, scratch_b_;
};

}  // namespace

std::unique_ptr<Instance> make_permute_gemm(const StreamSpec& spec, const RunContext& ctx) {
  return std::make_unique<PermuteGemm>(spec, ctx);
}

}  // namespace tfbench::workloads::contraction_replay
