// op=empty: `repeat` entries per iteration of an empty callback. engine:with_session enters through
// the backend (permit arbiter, thread marker); engine:held_session holds one session per iteration
// and re-enters it `repeat` times; peer:inline calls the same callback through a function pointer;
// peer:empty_kernel launches an empty Kokkos parallel_for (+ fence) on the space the engine's context runs on
// (Serial for one thread). metrics: entry_ns, the median nanoseconds of one entry.

#include "common/check.hpp"
#include "common/engine_backend.hpp"
#include "session_overhead/entry.hpp"

#include "tfbench/engine/exec/phase.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>

namespace tfbench::workloads::session_overhead {
namespace {

/// Base: counts callback runs so the check can prove every entry ran its callback exactly once.
class EmptyEntryBase : public Instance {
 public:
  explicit EmptyEntryBase(std::int64_t repeat) : repeat_(repeat) {}

  CheckResult check() override {
    calls_ = 0;
    run();
    return compare_counts(static_cast<double>(calls_), static_cast<double>(repeat_),
                          "callbacks run by " + std::to_string(repeat_) + " entries");
  }
  Work work() const override { return {}; }
  std::map<std::string, double> metrics() override {
    std::vector<double> ns;
    for (int r = 0; r < 31; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      const auto t1 = std::chrono::steady_clock::now();
      ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(repeat_));
    }
    std::sort(ns.begin(), ns.end());
    return {{"entry_ns", ns[ns.size() / 2]}, {"entries_per_iteration", static_cast<double>(repeat_)}};
  }

 protected:
  static void callback(EmptyEntryBase* self) { ++self->calls_; }
  std::int64_t repeat_;
  std::int64_t calls_ = 0;
};

class WithSession final : public EmptyEntryBase {
 public:
  WithSession(std::int64_t repeat, const RunContext& ctx)
      : EmptyEntryBase(repeat), backend_(make_backend(ctx)) {}
  void run() override {
    for (std::int64_t r = 0; r < repeat_; ++r) {
      auto entered_ok = backend_.with_session([this](Session&) { callback(this); });
      if (!entered_ok) throw_entry_error(entered_ok.error(), "session_overhead engine:with_session");
    }
  }

 private:
  CpuBackend backend_;
};

class HeldReentry final : public EmptyEntryBase {
 public:
  HeldReentry(std::int64_t repeat, const RunContext& ctx)
      : EmptyEntryBase(repeat), backend_(make_backend(ctx)) {}
  void run() override {
    // Held per iteration, never across iterations: an instance must not keep its thread inside a
    // session while other variants of the case run (they would be Reentered).
    HeldSession held = backend_.hold();
    if (!held.ok()) throw_entry_error(held.error(), "engine:held_session");
    for (std::int64_t r = 0; r < repeat_; ++r) {
      auto entered_ok = held.with_session([this](Session&) { callback(this); });
      if (!entered_ok) throw_entry_error(entered_ok.error(), "session_overhead engine:held_session");
    }
  }

 private:
  CpuBackend backend_;
};

class InlineCall final : public EmptyEntryBase {
 public:
  using EmptyEntryBase::EmptyEntryBase;
  void run() override {
    for (std::int64_t r = 0; r < repeat_; ++r) fn_(this);
  }

 private:
  // Through a volatile pointer: the call is made, not folded into a counter update.
  void (*volatile fn_)(EmptyEntryBase*) = &EmptyEntryBase::callback;
};

template <class ExecSpace>
class EmptyKernel final : public EmptyEntryBase {
 public:
  using EmptyEntryBase::EmptyEntryBase;
  void run() override {
    for (std::int64_t r = 0; r < repeat_; ++r) {
      Kokkos::parallel_for("tfbench::workloads::session_overhead::empty_kernel",
                           Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int){});
      ExecSpace().fence();
      callback(this);
    }
  }
};

}  // namespace

VariantTable empty_table(const OverheadCase& c, const RunContext& ctx) {
  return {
      engine_row("engine:with_session", [c, &ctx] { return std::make_unique<WithSession>(c.repeat, ctx); }),
      engine_row("engine:held_session", [c, &ctx] { return std::make_unique<HeldReentry>(c.repeat, ctx); }),
      peer_row("peer:inline", "c++", [c] { return std::make_unique<InlineCall>(c.repeat); }),
      peer_row("peer:empty_kernel", "kokkos", [c, &ctx] {
        // The space the engine's context runs its kernels on: Serial for a one-thread budget.
        return dispatch_exec_space(engine_space(ctx), [&](auto s) -> std::unique_ptr<Instance> {
          return std::make_unique<EmptyKernel<decltype(s)>>(c.repeat);
        });
      })};
}

}  // namespace tfbench::workloads::session_overhead
