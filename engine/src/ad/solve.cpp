// AD of the dense linear solve A x = b (A [n, n], b [n] or [n, k]) on a dense LU with partial
// pivoting (LAPACK getrf/getrs on host-accessible memory). The forward pass factors once; the node
// keeps the factors, so the backward solve with A^T (gb = A^-T g) reuses them (getrs 'T'); then
// gA = -gb x^T. The batched LU/solve of the batched-ops concern serves batches of small systems;
// this one serves a single dense system and its gradient.

#include <lapacke.h>

#include <cstring>
#include <string>
#include <vector>

#include "record.hpp"
#include "tfbench/engine/ad/ops.hpp"

namespace tfbench::ad {
namespace impl {
namespace {

constexpr const char* kWhere = "ad::solve";

template <class T>
struct LuFactors {
  std::vector<T> lu;  // column-major n x n, L and U of P A = L U
  std::vector<lapack_int> pivots;
  lapack_int n = 0;
};

lapack_int getrf(lapack_int n, double* a, lapack_int* piv) {
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, piv);
}
lapack_int getrf(lapack_int n, float* a, lapack_int* piv) {
  return LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, a, n, piv);
}
lapack_int getrs(char trans, lapack_int n, lapack_int nrhs, const double* a, const lapack_int* piv,
                 double* b) {
  return LAPACKE_dgetrs(LAPACK_COL_MAJOR, trans, n, nrhs, a, n, piv, b, n);
}
lapack_int getrs(char trans, lapack_int n, lapack_int nrhs, const float* a, const lapack_int* piv, float* b) {
  return LAPACKE_sgetrs(LAPACK_COL_MAJOR, trans, n, nrhs, a, n, piv, b, n);
}

void require_host(const TensorRead& r, const char* what) {
  if (r.space() == MemorySpaceKind::Device && !kDeviceMemoryIsHostAccessible)
    throw ops::OpError(
        ops::OpErrorCode::SpaceMismatch, kWhere,
        std::string(what) + " is in device memory; the dense LU runs on the host (download it)");
}

/// Copies an owner's elements (compact column-major, host-accessible) into a vector.
template <class T>
std::vector<T> host_copy(const Tensor<T>& t, const char* what) {
  const TensorRead r(t);
  require_host(r, what);
  const T* p = static_cast<const T*>(tfbench::impl::element_zero(r));
  return std::vector<T>(p, p + t.numel());
}

/// Solves op(A) X = B in place of a tensor of B's shape, in the session's output memory.
template <class T>
Tensor<T> lu_solve(Session& s, const LuFactors<T>& f, char trans, const Tensor<T>& rhs) {
  const TensorRead r(rhs);
  require_host(r, "the right-hand side");
  if (s.context().memory == MemoryKind::Device && !kDeviceMemoryIsHostAccessible)
    throw ops::OpError(ops::OpErrorCode::SpaceMismatch, kWhere, "the session writes device memory");
  tfbench::impl::Output<T, DynRank, Dynamic> out(s, Shape(rhs.shape()));
  const auto dest = out.dest();
  std::memcpy(dest.data, tfbench::impl::element_zero(r), static_cast<std::size_t>(rhs.numel()) * sizeof(T));
  const lapack_int nrhs = rhs.rank() == 1 ? 1 : static_cast<lapack_int>(rhs.shape()[1]);
  if (f.n > 0 && nrhs > 0) getrs(trans, f.n, nrhs, f.lu.data(), f.pivots.data(), static_cast<T*>(dest.data));
  return std::move(out).publish(s);
}

template <class T>
struct SolveNode final : Node<T> {
  std::shared_ptr<const LuFactors<T>> factors;
  Value<T> x;
  const char* name() const override { return "solve"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    Value<T> gb = share(lu_solve<T>(s, *factors, 'T', *g));
    if (this->inputs[1]) out[1] = gb;
    if (this->inputs[0]) {
      Tensor<T> ga =
          x->rank() == 1 ? ops::einsum(s, "i,j->ij", *gb, *x) : ops::einsum(s, "ik,jk->ij", *gb, *x);
      ops::scale_into(s, ga, T(-1), ga);
      out[0] = share(std::move(ga));
    }
  }
};

}  // namespace
}  // namespace impl

template <class T>
Var<T> solve(Session& s, const Var<T>& a, const Var<T>& b) {
  const auto as = a.shape(), bs = b.shape();
  if (as.size() != 2 || as[0] != as[1])
    throw ops::OpError(ops::OpErrorCode::ShapeMismatch, impl::kWhere, "A must be square [n, n]");
  if ((bs.size() != 1 && bs.size() != 2) || bs[0] != as[0])
    throw ops::OpError(ops::OpErrorCode::ShapeMismatch, impl::kWhere,
                       "b must be [n] or [n, k] with n = " + std::to_string(as[0]));
  auto factors = std::make_shared<impl::LuFactors<T>>();
  factors->n = static_cast<lapack_int>(as[0]);
  factors->lu = impl::host_copy(a.value(), "A");
  factors->pivots.assign(static_cast<std::size_t>(factors->n), 0);
  if (factors->n > 0) {
    const lapack_int info = impl::getrf(factors->n, factors->lu.data(), factors->pivots.data());
    if (info > 0)
      throw ops::OpError(ops::OpErrorCode::Singular, impl::kWhere,
                         "A is singular (U(" + std::to_string(info) + ", " + std::to_string(info) + ") = 0)");
  }
  Tensor<T> x = impl::lu_solve<T>(s, *factors, 'N', b.value());
  if (!impl::should_record<T>({&a, &b})) return Var<T>(std::move(x));
  auto node = std::make_shared<impl::SolveNode<T>>();
  node->factors = std::move(factors);
  auto value = impl::share(std::move(x));
  node->x = value;
  node->inputs.push_back(a.node());
  node->inputs.push_back(b.node());
  return Var<T>::make(std::move(value), std::move(node));
}

template Var<float> solve<float>(Session&, const Var<float>&, const Var<float>&);
template Var<double> solve<double>(Session&, const Var<double>&, const Var<double>&);

}  // namespace tfbench::ad
