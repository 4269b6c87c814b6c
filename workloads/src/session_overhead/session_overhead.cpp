#include "session_overhead/session_overhead.hpp"

#include "common/param_specs.hpp"
#include "common/variant_table.hpp"
#include "session_overhead/entry.hpp"

namespace tfbench::workloads {
namespace {

using namespace session_overhead;

class SessionOverhead final : public TableFamily {
 public:
  std::string_view name() const override { return "session_overhead"; }
  bool host_only() const override { return true; }  // a CpuBackend, host data
  std::string_view description() const override {
    return "cost of entering the engine: empty session entry vs an inline call and an empty kernel; a "
           "chain of small operations in one session vs separate sessions vs raw kernels; phase lanes of "
           "a held session vs a plain parallel_for";
  }
  std::vector<ParamSpec> parameters() const override {
    return {string_param("op",
                         "empty: session entries; chain: small operations in one session, separate sessions "
                         "or raw kernels; phase: phase lanes vs parallel_for",
                         "empty", {"empty", "chain", "phase"}),
            int_param("repeat", "entries per iteration (op=empty)", 1000, 1, 1e8),
            int_param("elements", "doubles per array of the chain and lane work (op=chain, phase)", 65536, 1,
                      1e10),
            int_param("chain_length", "operations of a chain (op=chain)", 10, 1, 10000)};
  }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const OverheadCase c = read(params);
    if (c.op == "empty") return empty_table(c, ctx);
    if (c.op == "chain") return chain_table(c, ctx);
    return phase_table(c, ctx);
  }
  std::string table_name(const Params& params) const override {
    return std::string(name()) + " op=" + read(params).op;
  }

 private:
  OverheadCase read(const Params& params) const {
    const ParamReader p(std::string(name()), parameters(), params);
    OverheadCase c;
    c.op = p.get_string("op");
    c.repeat = p.get_int("repeat");
    c.elements = p.get_int("elements");
    c.chain_length = p.get_int("chain_length");
    return c;
  }
};

}  // namespace

const Family& session_overhead_family() {
  static const SessionOverhead family;
  return family;
}

}  // namespace tfbench::workloads
