// peer:torch: torch.bmm on the stacked batch in the persistent torch runner, on the case's device
// (torch's GPU for a device space, the CPU for a host space); operands are copied there once at
// set-up, each run is fenced and timed inside Python.

#include "packed_small/gemm_peers.hpp"
#include "peers/torch_runner.hpp"

namespace tfbench::workloads::packed_small {
namespace {

std::string torch_fields(const GemmBatchShape& s) {
  return std::string("op=matmul dtype=") + (s.element_size == 8 ? "float64" : "float32") +
         " n=" + std::to_string(s.n) + " batch=" + std::to_string(s.batch) + " ld=" + std::to_string(s.ld) +
         " stride=" + std::to_string(s.stride);
}

template <class T>
class TorchGemm final : public TorchPeerInstance {
 public:
  TorchGemm(const GemmBatchShape& s, const RunContext& ctx)
      : TorchPeerInstance(torch_fields(s), 3 * s.elements() * sizeof(T), ctx),
        shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)) {
    T* base = static_cast<T*>(op_.data());
    fill_operand(base, s, seeds_.a, 1);
    fill_operand(base + s.elements(), s, seeds_.b, 1);
    setup();
  }

  CheckResult check() override {
    const T* c = checked_output<T>(2 * shape_.elements());
    return check_gemm_batch<T>(shape_, seeds_,
                               [&](std::int64_t i, int r, int col) { return c[shape_.offset(i, r, col)]; });
  }
  Work work() const override { return gemm_batch_work(shape_); }

 private:
  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_torch(const GemmBatchShape& s, const RunContext& ctx) {
  return make_torch_peer<TorchGemm<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_torch<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_torch<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
