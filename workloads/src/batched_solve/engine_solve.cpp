// engine:<strategy>: ops::batched_solve_into on Host tensors A [n, n, batch], B and X [n, nrhs, batch]
// of a CpuBackend session like the worker's (on a device space: Device tensors of a DeviceBackend
// session, uploaded at set-up), declaring Pivoting::None (the inputs are diagonally
// dominant: every route, KokkosBatched's unpivoted LU included, is then correct); A and B stay
// intact. The strategy is forced per operation or left to the backend's Auto; the route a run took
// is in the metrics.

#include "batched_solve/solve_peers.hpp"
#include "common/engine_backend.hpp"
#include "common/engine_route.hpp"
#include "common/operand_placement.hpp"

#include "tfbench/engine/ops/batched_solve.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::workloads::batched_solve {
namespace {

template <class T>
using HostTensor = Tensor<T, DynRank, Host>;

template <class T, class Operands>
struct System {
  typename Operands::Owner a, b, x;
};

/// A, B and a zero X, placed where the variant's operands live (`to` is a backend or a session).
template <class T, class Operands, class Where>
System<T, Operands> make_system(Where& to, const SolveShape& s, const SolveSeeds& seeds, int threads) {
  std::vector<T> a(s.a_elements()), b(s.b_elements());
  fill_system(a.data(), b.data(), s, seeds, threads);
  return {Operands::place(to, HostTensor<T>::from_col_major({s.n, s.n, s.batch}, std::move(a))),
          Operands::place(to, HostTensor<T>::from_col_major({s.n, s.nrhs, s.batch}, std::move(b))),
          Operands::place(to, HostTensor<T>::zeros({s.n, s.nrhs, s.batch}))};
}

ops::BatchedOptions solve_options(const EngineStrategy& strategy) {
  ops::BatchedOptions o = batched_options(strategy);
  o.pivoting = ops::Pivoting::None;
  return o;
}

template <class T, class Operands>
class EngineSolve final : public Instance {
 public:
  EngineSolve(const SolveShape& s, const RunContext& ctx, const EngineStrategy& strategy)
      : shape_(s),
        seeds_(solve_seeds(ctx.seed)),
        variant_(strategy.variant),
        options_(solve_options(strategy)),
        backend_(Operands::backend(ctx)),
        sys_(make_system<T, Operands>(backend_, s, seeds_, ctx.threads)) {}

  CheckResult check() override {
    run();
    const std::vector<T> x = Operands::to_host(backend_, sys_.x);
    return check_solve<T>(shape_, seeds_, [&](std::int64_t i, int r, int j) {
      return x[static_cast<std::size_t>(i) * shape_.b_stride() + static_cast<std::size_t>(j) * shape_.n + r];
    });
  }

  void run() override {
    auto ran = backend_.with_session(
        [this](Session& s) { return ops::batched_solve_into(s, sys_.a, sys_.b, sys_.x, options_); });
    if (!ran) throw_entry_error(ran.error(), "batched_solve " + variant_);
    if (!*ran) throw WorkloadError("batched_solve " + variant_ + ": " + ran->error().what());
    last_ = ran->value();
    fan_outs_.add(last_);
  }

  Work work() const override { return solve_work(shape_); }

  ResourceCounts resources() override {
    return pool_resources(backend_, [this] { run(); });
  }

  std::map<std::string, double> metrics() override {
    auto m = route_metrics(last_);
    fan_outs_.add_metric(m);
    return m;
  }

 private:
  SolveShape shape_;
  SolveSeeds seeds_;
  std::string variant_;
  ops::BatchedOptions options_;
  typename Operands::Backend backend_;
  System<T, Operands> sys_;
  ops::BatchRun last_;
  FanOutTally fan_outs_;
};

template <class T, class Operands>
Result<ops::BatchRun, ops::BatchedError> tiny_solve(Session& session, const SolveShape& tiny,
                                                    const SolveSeeds& seeds,
                                                    const ops::BatchedOptions& options) {
  auto sys = make_system<T, Operands>(session, tiny, seeds, 1);
  return ops::batched_solve_into(session, sys.a, sys.b, sys.x, options);
}

}  // namespace

template <class T>
std::unique_ptr<Instance> make_engine_solve(const SolveShape& s, const RunContext& ctx,
                                            const EngineStrategy& strategy) {
  if (on_device(ctx)) return std::make_unique<EngineSolve<T, DevicePlacement<T>>>(s, ctx, strategy);
  return std::make_unique<EngineSolve<T, HostPlacement<T>>>(s, ctx, strategy);
}
template std::unique_ptr<Instance> make_engine_solve<double>(const SolveShape&, const RunContext&,
                                                             const EngineStrategy&);
template std::unique_ptr<Instance> make_engine_solve<float>(const SolveShape&, const RunContext&,
                                                            const EngineStrategy&);

std::optional<std::string> engine_solve_refusal(const SolveShape& s, const RunContext& ctx,
                                                const EngineStrategy& strategy) {
  SolveShape tiny = s;
  tiny.batch = 2;
  const std::string key = "batched_solve|" + strategy.variant + "|" + std::to_string(s.n) + "|" +
                          std::to_string(s.nrhs) + "|" + std::to_string(s.element_size);
  const bool device = on_device(ctx);
  return engine_refusal(key, ctx, [&](Session& session) {
    const SolveSeeds seeds{1, 2};
    const auto options = solve_options(strategy);
    if (s.element_size == 4) {
      return device ? tiny_solve<float, DevicePlacement<float>>(session, tiny, seeds, options)
                    : tiny_solve<float, HostPlacement<float>>(session, tiny, seeds, options);
    }
    return device ? tiny_solve<double, DevicePlacement<double>>(session, tiny, seeds, options)
                  : tiny_solve<double, HostPlacement<double>>(session, tiny, seeds, options);
  });
}

}  // namespace tfbench::workloads::batched_solve
