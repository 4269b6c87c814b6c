// peer:torch: torch.linalg.solve on the stacked systems in the persistent torch runner, on the case's
// device (torch's GPU for a device space, the CPU for a host space; copied there once at set-up),
// each run fenced and timed inside Python.

#include "batched_solve/solve_peers.hpp"
#include "peers/torch_runner.hpp"

namespace tfbench::workloads::batched_solve {
namespace {

std::string torch_fields(const SolveShape& s) {
  return std::string("op=solve dtype=") + (s.element_size == 8 ? "float64" : "float32") +
         " n=" + std::to_string(s.n) + " nrhs=" + std::to_string(s.nrhs) +
         " batch=" + std::to_string(s.batch);
}

template <class T>
class TorchSolve final : public TorchPeerInstance {
 public:
  TorchSolve(const SolveShape& s, const RunContext& ctx)
      : TorchPeerInstance(torch_fields(s), (s.a_elements() + 2 * s.b_elements()) * sizeof(T), ctx),
        shape_(s),
        seeds_(solve_seeds(ctx.seed)) {
    T* base = static_cast<T*>(op_.data());
    fill_system(base, base + s.a_elements(), s, seeds_, 1);
    setup();
  }
  CheckResult check() override {
    const T* x = checked_output<T>(shape_.a_elements() + shape_.b_elements());
    return check_solve<T>(shape_, seeds_, [&](std::int64_t i, int r, int j) {
      return x[static_cast<std::size_t>(i) * shape_.b_stride() + static_cast<std::size_t>(j) * shape_.n + r];
    });
  }
  Work work() const override { return solve_work(shape_); }

 private:
  SolveShape shape_;
  SolveSeeds seeds_;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_torch_solve(const SolveShape& s, const RunContext& ctx) {
  return make_torch_peer<TorchSolve<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_torch_solve<double>(const SolveShape&, const RunContext&);
template std::unique_ptr<Instance> make_torch_solve<float>(const SolveShape&, const RunContext&);

}  // namespace tfbench::workloads::batched_solve
