#include "ad/ad.hpp"

#include "ad/ad_peers.hpp"
#include "common/variant_table.hpp"

namespace tfbench::workloads {
namespace {

using namespace autodiff;

class Ad final : public TableFamily {
 public:
  std::string_view name() const override { return "ad"; }
  bool host_only() const override { return true; }  // a CpuBackend, host data
  std::string_view description() const override {
    return "eager reverse-mode AD: forward and forward+backward of a contraction chain X W_1...W_d and of a "
           "solve A^-1 B under a weighted sum; the engine's tape vs gradients written by hand with BLAS";
  }
  std::vector<ParamSpec> parameters() const override { return ad_params(); }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const AdCase c = read(params);
    VariantTable t = {engine_row("engine:tape", [c, &ctx] { return make_engine_ad(c, ctx, false); })};
    if (c.pass == "forward")
      t.push_back(engine_row("engine:no_grad", [c, &ctx] { return make_engine_ad(c, ctx, true); }));
    t.push_back(peer_row("peer:blas", "openblas", [c, &ctx] { return make_blas_ad(c, ctx); }));
    return t;
  }

 private:
  AdCase read(const Params& params) const {
    return read_ad_case(ParamReader(std::string(name()), parameters(), params));
  }
};

}  // namespace

const Family& ad_family() {
  static const Ad family;
  return family;
}

}  // namespace tfbench::workloads
