#pragma once
// Helpers of the operation facade tests: a backend over the test's space, host operands with chosen
// strided layouts, and element access of results.

#include <catch2/catch.hpp>

#include <stdexcept>
#include <utility>

#include "reference.hpp"
#include "test_context.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/ops/ops.hpp"

namespace tfbench::testing {

/// A CPU backend over the test's space (Serial, or OpenMP with the whole pool as its budget).
inline CpuBackend ops_backend() {
  CpuBackendConfig config;
  config.space = is_host_space(space()) ? space() : ExecSpaceKind::Serial;
  auto made = CpuBackend::create(config);
  if (!made) throw std::runtime_error(made.error().message);
  return std::move(made).value();
}

/// Runs f(Session&) in one session of `backend`; entry must succeed.
template <class F>
void in_session(CpuBackend& backend, F&& f) {
  auto r = backend.with_session([&](Session& s) { f(s); });
  REQUIRE(r.has_value());
}

/// A Host owner holding a StridedHost's storage, and the strided view of its logical layout.
template <class T>
struct HostOperand {
  Tensor<T, DynRank, Host> owner;
  std::vector<index_t> shape, strides;
  index_t origin = 0;

  explicit HostOperand(const StridedHost<T>& h)
      : owner(Tensor<T, DynRank, Host>::from_col_major({static_cast<Index>(h.storage.size())}, h.storage)),
        shape(h.shape),
        strides(h.strides),
        origin(h.origin) {}
  TensorView<T, DynRank, Host> view() const { return owner.strided_view(shape, strides, origin); }
  TensorViewMut<T, DynRank, Host> view_mut() { return owner.strided_view_mut(shape, strides, origin); }
  const T& at(const std::vector<index_t>& idx) const {
    index_t off = origin;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return owner.data()[off];
  }
};

/// Random operand of `shape` stored with axes in `order`, padded strides, flipped axes.
template <class T>
HostOperand<T> random_operand(std::mt19937_64& rng, const std::vector<index_t>& shape,
                              std::vector<int> order = {}, index_t pad = 0, std::vector<bool> flip = {}) {
  auto h = make_strided<T>(shape, std::move(order), pad, std::move(flip));
  fill_random(h, rng);
  return HostOperand<T>(h);
}

template <class T, class Rep>
const T& element(const Tensor<T, DynRank, Rep>& t, const std::vector<index_t>& idx) {
  static_assert(std::is_same<Rep, Host>::value, "host results");
  return t.at(Span<const Index>(idx.data(), idx.size()));
}

inline std::vector<index_t> shape_vec(Span<const Index> s) {
  return std::vector<index_t>(s.begin(), s.end());
}

}  // namespace tfbench::testing
