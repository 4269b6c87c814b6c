#pragma once
// A family's variants as one table: each row says what variants() reports for it (name, kind,
// provider, strategy, why it cannot run here) and how instantiate() builds it, so the variant list
// and the factory cannot disagree. A table is built per call for one case: its functions hold a copy
// of the case's shape and the caller's run context by reference, and run only when asked.

#include "common/engine_route.hpp"
#include "tfbench/workloads/family.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfbench::workloads {

/// Why a variant cannot run here, or empty when it can.
using Availability = std::function<std::optional<std::string>()>;
using Factory = std::function<std::unique_ptr<Instance>()>;

struct VariantRow {
  std::string name;
  VariantKind kind = VariantKind::Engine;
  std::string provider;
  std::string strategy;      // batch strategy of an engine variant, else empty
  Availability unavailable;  // null: always available
  Factory make;
  /// Set where only the peer can name its provider (a Python peer names its library version and
  /// device); asked by variants() only, in place of `provider`.
  std::function<std::string()> ask_provider;
};

using VariantTable = std::vector<VariantRow>;

// Rows with no batch strategy (engine_strategy_rows names those); `unavailable` null: always runs.
inline VariantRow engine_row(std::string name, Factory make) {
  return {std::move(name), VariantKind::Engine, "tfbench", "", nullptr, std::move(make)};
}
inline VariantRow peer_row(std::string name, std::string provider, Factory make,
                           Availability unavailable = nullptr) {
  VariantRow row{std::move(name), VariantKind::Peer, std::move(provider)};
  row.unavailable = std::move(unavailable);
  row.make = std::move(make);
  return row;
}
inline VariantRow control_row(std::string name, std::string provider, Factory make) {
  return {std::move(name), VariantKind::Control, std::move(provider), "", nullptr, std::move(make)};
}

/// What variants() reports: every row, in table order.
inline std::vector<VariantInfo> describe(const VariantTable& table) {
  std::vector<VariantInfo> out;
  out.reserve(table.size());
  for (const VariantRow& row : table) {
    std::string provider = row.ask_provider ? row.ask_provider() : row.provider;
    std::optional<std::string> unavailable = row.unavailable ? row.unavailable() : std::nullopt;
    out.push_back({row.name, row.kind, std::move(provider), row.strategy, std::move(unavailable)});
  }
  return out;
}

/// Builds the row named `variant`; a WorkloadError "<family> has no variant '<variant>'" where there
/// is none.
inline std::unique_ptr<Instance> build(const VariantTable& table, std::string_view family,
                                       const std::string& variant) {
  for (const VariantRow& row : table) {
    if (row.name == variant) return row.make();
  }
  throw WorkloadError(std::string(family) + " has no variant '" + variant + "'");
}

/// One Engine row per batch strategy, in engine_strategies() order: refusal(e) asks the engine why
/// it cannot run strategy e here, make(e) builds it.
inline VariantTable engine_strategy_rows(
    std::function<std::optional<std::string>(const EngineStrategy&)> refusal,
    std::function<std::unique_ptr<Instance>(const EngineStrategy&)> make) {
  VariantTable rows;
  for (const EngineStrategy& e : engine_strategies()) {
    rows.push_back({e.variant, VariantKind::Engine, "tfbench",
                    e.strategy ? tfbench::name(*e.strategy) : "auto", [refusal, &e] { return refusal(e); },
                    [make, &e] { return make(e); }});
  }
  return rows;
}

/// A family whose variants() and instantiate() both read its table().
class TableFamily : public Family {
 public:
  std::vector<VariantInfo> variants(const Params& params, const RunContext& ctx) const final {
    return selected_variants(params, ctx, [](const std::string&) { return true; });
  }
  std::vector<VariantInfo> selected_variants(
      const Params& params, const RunContext& ctx,
      const std::function<bool(const std::string&)>& wanted) const final {
    VariantTable rows = table(params, ctx);
    rows.erase(
        std::remove_if(rows.begin(), rows.end(), [&](const VariantRow& row) { return !wanted(row.name); }),
        rows.end());
    if (host_only() && !is_host_space(ctx.space)) {
      const std::string why = std::string(name()) + " runs on the host (CpuBackend, host data): no " +
                              tfbench::name(ctx.space) + " variant; run it on serial or openmp";
      for (VariantRow& row : rows) row.unavailable = [why] { return std::optional<std::string>(why); };
    }
    return describe(rows);
  }
  std::vector<std::string> variant_names(const Params& params, const RunContext& ctx) const final {
    std::vector<std::string> names;
    for (const VariantRow& row : table(params, ctx)) names.push_back(row.name);
    return names;
  }
  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext& ctx) const final {
    return build(table(params, ctx), table_name(params), variant);
  }

 protected:
  /// The case's variants. Rows keep copies of what they read from `params` (the table outlives this
  /// call); `ctx` outlives the table.
  virtual VariantTable table(const Params& params, const RunContext& ctx) const = 0;
  /// Who "has no variant" (the family, or the family and the parameter that picked the table).
  virtual std::string table_name(const Params&) const { return std::string(name()); }
};

}  // namespace tfbench::workloads
