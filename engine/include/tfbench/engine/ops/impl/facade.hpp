#pragma once
// What the typed facades share: operand traits (element type, rank, representation of a Tensor,
// TensorView or TensorViewMut), the session's OpContext and scratch (session scratch leases), and
// the allocating output (a session output lease, published as the promised representation only
// after the kernels wrote every element).

#include <type_traits>
#include <utility>
#include <vector>

#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/error.hpp"
#include "tfbench/engine/ops/impl/erased.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::impl {

template <class X>
struct operand_traits {
  static constexpr bool typed = false;
};
template <class T, class R, class Rep>
struct operand_traits<Tensor<T, R, Rep>> {
  static constexpr bool typed = true;
  using element = T;
  using rank = R;
  using rep = Rep;
};
template <class T, class R, class Rep>
struct operand_traits<TensorView<T, R, Rep>> : operand_traits<Tensor<T, R, Rep>> {};
template <class T, class R, class Rep>
struct operand_traits<TensorViewMut<T, R, Rep>> : operand_traits<Tensor<T, R, Rep>> {};

template <class X>
using element_of = typename operand_traits<std::decay_t<X>>::element;
template <class X>
using rank_of_t = typename operand_traits<std::decay_t<X>>::rank;
template <class X>
using rep_of = typename operand_traits<std::decay_t<X>>::rep;

/// An erased read of any operand (a TensorRead passes through).
inline const TensorRead& as_read(const TensorRead& r) {
  return r;
}
template <class X, class = std::enable_if_t<operand_traits<std::decay_t<X>>::typed>>
TensorRead as_read(const X& x) {
  return TensorRead(x);
}
/// The destination of any writable operand (a TensorWrite passes through).
inline DestRef as_dest(const TensorWrite& w) {
  return dest_of(w);
}
template <class X, class = std::enable_if_t<operand_traits<std::decay_t<X>>::typed>>
DestRef as_dest(X& x) {
  TensorWrite w(x);
  return dest_of(w);
}

/// Scratch of one operation, drawn from the session's pool as scratch leases.
class SessionScratch final : public ScratchArena {
 public:
  explicit SessionScratch(Session& session) : session_(session) {}

 protected:
  void* take_bytes(std::size_t bytes) override {
    leases_.push_back(session_.scratch(bytes == 0 ? 1 : bytes));
    return leases_.back().data();
  }

 private:
  Session& session_;
  std::vector<ScratchLease> leases_;
};

/// OpError(SessionParked): an operation on a held root while a phase runs on it.
[[noreturn]] void throw_session_parked();

/// The execution target of an operation on `s`; every tensor operation asks for it before it reads or
/// writes anything, so a parked root session is refused here, with its destination untouched. The
/// core is read once: each of Session's accessors is a virtual call (wrappers forward it).
inline ExecTarget exec_target(const Session& s) {
  const SessionCore& core = SessionAccess::core(s);
  if (core.parked) throw_session_parked();
  return {core.context.space, core.context.threads};
}

/// The contraction provider the session's context admits: the first candidate of its
/// Contraction slot that may run here. An independent runtime (threaded OpenBLAS) is skipped inside
/// outer fan-out; the Kokkos same-pool/sequential candidates run GEMM-sized steps as Kokkos kernels on
/// the session's space. No admissible candidate: OpError(Unsupported) before anything runs.
bool contraction_uses_blas(const Session& s, const char* where);
/// Multiply-adds per item up to which the session's contractions run the direct kernel: its
/// effective batch policy's direct_contraction_muladds, else the crossover its tuning measured for
/// the session's threads, else the built-in kDirectItemWork (impl/contraction_plan.hpp).
double direct_contraction_muladds(const Session& s);

inline MemorySpaceKind memory_space_of(MemoryKind m) {
  return m == MemoryKind::Host ? MemorySpaceKind::Host : MemorySpaceKind::Device;
}

/// Waits for the session's kernels where they run asynchronously (device spaces) before publishing.
inline void complete(const Session& s) {
  if (!is_host_space(s.space())) s.dispatch([](auto space) { space.fence(); });
}
/// The same for an operation that holds the session's target (exec_target(s)): no session lookup.
inline void complete(const ExecTarget& target) {
  if (!is_host_space(target.space)) dispatch_exec_space(target.space, [](auto space) { space.fence(); });
}

/// The representation an allocating facade returns for operands of representation Rep.
void check_output_memory(const char* where, const Session& s, bool want_host, bool want_device);

template <class Rep>
void check_output_rep(const char* where, const Session& s) {
  check_output_memory(where, s, std::is_same<Rep, Host>::value, std::is_same<Rep, Device>::value);
}

/// An allocating operation's output: an uninitialized lease in the session's memory.
template <class T, class R, class Rep>
class Output {
 public:
  Output(Session& s, Extents<R> shape) : lease_(s.template output_lease<T, R>(std::move(shape))) {}

  DestRef dest() const {
    const auto& shape = lease_.shape();
    return compact_dest(lease_.data(), dtype_of<T>(), memory_space_of(lease_.memory()),
                        Span<const Index>(shape.data(), shape.size()));
  }
  /// Every element has been written: the lease becomes the result tensor.
  Tensor<T, R, Rep> publish(const Session& s) && {
    complete(s);
    if constexpr (std::is_same<Rep, Host>::value) {
      return std::move(lease_).publish_host();
    } else if constexpr (std::is_same<Rep, Device>::value) {
      return std::move(lease_).publish_device();
    } else {
      return std::move(lease_).publish();
    }
  }

 private:
  OutputLease<T, R> lease_;
};

template <class R>
Extents<R> extents_of(Span<const Index> shape, const char* where) {
  return extents_from<R>(shape, where);
}

}  // namespace tfbench::impl
