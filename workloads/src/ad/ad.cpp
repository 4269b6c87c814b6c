#include "ad/ad.hpp"

#include "ad/ad_peers.hpp"

namespace tfbench::workloads {
namespace {

using namespace autodiff;

class Ad final : public Family {
 public:
  std::string_view name() const override { return "ad"; }
  std::string_view description() const override {
    return "eager reverse-mode AD: forward and forward+backward of a contraction chain X W_1...W_d and of a "
           "solve A^-1 B under a weighted sum; the engine's tape vs gradients written by hand with BLAS";
  }
  std::vector<ParamSpec> parameters() const override { return ad_params(); }
  std::vector<VariantInfo> variants(const Params& params, const RunContext&) const override {
    (void)read(params);
    return {{"peer:blas", VariantKind::Peer, "openblas", "", std::nullopt}};
  }
  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext& ctx) const override {
    const AdCase c = read(params);
    if (variant == "peer:blas") return make_blas_ad(c, ctx);
    throw WorkloadError("ad has no variant '" + variant + "'");
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
