// op=phase: z = a x + y over `elements` doubles. engine:phase runs it as lanes of a phase of a held
// session (one lane per thread of the budget, each a Serial kernel over its contiguous chunk in its
// child session; one inline lane at one thread); peer:parallel_for is one plain Kokkos parallel_for
// over all elements on the space the engine's context uses (Serial at one thread, else the pool). The work is
// identical; the ratio is the phase's cost (holding the session, once per iteration, included).

#include "common/check.hpp"
#include "common/engine_backend.hpp"
#include "common/random.hpp"
#include "session_overhead/entry.hpp"

#include "tfbench/engine/exec/phase.hpp"

#include <Kokkos_Core.hpp>

namespace tfbench::workloads::session_overhead {
namespace {

constexpr double kA = 0.75;

using HostView = Kokkos::View<double*, Kokkos::HostSpace>;

/// z(i) = a x(i) + y(i) over [first, last) on `space`.
template <class ExecSpace>
void axpy_range(const ExecSpace& space, const HostView& x, const HostView& y, const HostView& z,
                std::int64_t first, std::int64_t last) {
  Kokkos::parallel_for(
      "tfbench::workloads::session_overhead::axpy",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, first, last),
      KOKKOS_LAMBDA(const std::int64_t i) { z(i) = kA * x(i) + y(i); });
  space.fence();
}

class PhaseBase : public Instance {
 public:
  PhaseBase(std::int64_t n, const RunContext& ctx)
      : n_(n),
        x_(Kokkos::view_alloc(std::string("tfbench::workloads::session_overhead::x"),
                              Kokkos::WithoutInitializing),
           n),
        y_(Kokkos::view_alloc(std::string("tfbench::workloads::session_overhead::y"),
                              Kokkos::WithoutInitializing),
           n),
        z_("tfbench::workloads::session_overhead::z", n) {
    const std::uint64_t sx = derive_seed(ctx.seed, 401), sy = derive_seed(ctx.seed, 402);
    for (std::int64_t i = 0; i < n; ++i) {
      x_(i) = random_at(sx, static_cast<std::uint64_t>(i));
      y_(i) = random_at(sy, static_cast<std::uint64_t>(i));
    }
  }
  CheckResult check() override {
    Kokkos::deep_copy(z_, 0.0);
    run();
    std::vector<double> actual(z_.data(), z_.data() + n_), ref(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i) ref[i] = kA * x_(i) + y_(i);
    return compare_outputs(std::move(actual), ref, 1e-15, "z = a x + y against a host loop");
  }
  Work work() const override {
    Work w{2.0 * static_cast<double>(n_), 24.0 * static_cast<double>(n_)};
    w.write_allocate_bytes = 8.0 * static_cast<double>(n_);  // z is written, not read
    return w;
  }

 protected:
  std::int64_t n_;
  HostView x_, y_, z_;
};

class EnginePhase final : public PhaseBase {
 public:
  EnginePhase(std::int64_t n, const RunContext& ctx) : PhaseBase(n, ctx), backend_(make_backend(ctx)) {}
  void run() override {
    // Held per iteration (an instance never keeps its thread inside a session between iterations).
    HeldSession held = backend_.hold();
    if (!held.ok()) throw_entry_error(held.error(), "engine:phase");
    const HostView x = x_, y = y_, z = z_;
    const std::int64_t n = n_;
    auto outcome = held.phase([&](Phase& phase) {
      const int lanes = static_cast<int>(phase.lanes());
      return phase.run([&](std::size_t lane, PhaseLane& l) -> Result<void, std::string> {
        const auto range = lane_item_range(static_cast<int>(lane), lanes, n);
        l.session().dispatch([&](auto space) { axpy_range(space, x, y, z, range.first, range.second); });
        return {};
      });
    });
    if (!outcome)
      throw WorkloadError(std::string("engine:phase: ") + name(outcome.error().kind) + ": " +
                          outcome.error().message);
    if (!*outcome) {
      const auto& e = outcome->error();
      throw WorkloadError("engine:phase: lane failed: " +
                          (e.is_session() ? e.session_error().message : e.lane_error()));
    }
  }
  std::map<std::string, double> metrics() override {
    return {{"lanes", static_cast<double>(backend_.context().threads)}};
  }

 private:
  CpuBackend backend_;
};

template <class ExecSpace>
class PlainParallelFor final : public PhaseBase {
 public:
  using PhaseBase::PhaseBase;
  void run() override { axpy_range(ExecSpace(), x_, y_, z_, 0, n_); }
};

}  // namespace

VariantTable phase_table(const OverheadCase& c, const RunContext& ctx) {
  return {engine_row("engine:phase", [c, &ctx] { return std::make_unique<EnginePhase>(c.elements, ctx); }),
          peer_row("peer:parallel_for", "kokkos", [c, &ctx] {
            return dispatch_exec_space(engine_space(ctx), [&](auto s) -> std::unique_ptr<Instance> {
              return std::make_unique<PlainParallelFor<decltype(s)>>(c.elements, ctx);
            });
          })};
}

}  // namespace tfbench::workloads::session_overhead
