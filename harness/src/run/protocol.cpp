#include "run/protocol.hpp"

#include "results/schema.hpp"
#include "util/json_values.hpp"

#include <limits>
#include <stdexcept>

namespace tfbench {

void to_json(harness::Json& json, ExecSpaceKind kind) {
  json = name(kind);
}

void from_json(const harness::Json& json, ExecSpaceKind& kind) {
  const auto text = json.get<std::string>();
  const auto parsed = parse_exec_space(text);
  if (!parsed) throw std::invalid_argument("unknown execution space '" + text + "'");
  kind = *parsed;
}

}  // namespace tfbench

namespace tfbench::workloads {

void to_json(harness::Json& json, const Params& params) {
  json = harness::Json::object();
  for (const auto& [key, value] : params.values()) {
    std::visit([&, &key = key](const auto& v) { json[key] = v; }, value);
  }
}

void from_json(const harness::Json& json, Params& params) {
  params = Params();
  for (const auto& [key, value] : json.get_ref<const harness::Json::object_t&>()) {
    if (value.is_number_integer()) {
      params.set(key, value.get<std::int64_t>());
    } else if (value.is_number_float()) {
      params.set(key, value.get<double>());
    } else if (value.is_boolean()) {
      params.set(key, value.get<bool>());
    } else if (value.is_string()) {
      params.set(key, value.get<std::string>());
    } else {
      throw std::invalid_argument("parameter '" + key + "' has no scalar value (found " + value.type_name() +
                                  ")");
    }
  }
}

namespace {
using harness::impl::number_or_null;
double number_or_nan(const harness::Json& j, const char* member) {
  return harness::impl::number_or_nan(j.at(member));
}
harness::Json ceiling_json(const Ceiling& c) {
  return {{"best", number_or_null(c.best)},
          {"median", number_or_null(c.median)},
          {"worst", number_or_null(c.worst)},
          {"samples", c.samples},
          {"working_set_bytes", c.working_set_bytes}};
}
Ceiling ceiling_from(const harness::Json& j) {
  Ceiling c;
  c.best = number_or_nan(j, "best");
  c.median = number_or_nan(j, "median");
  c.worst = number_or_nan(j, "worst");
  c.samples = j.at("samples").get<int>();
  c.working_set_bytes = number_or_nan(j, "working_set_bytes");
  return c;
}
}  // namespace

void to_json(harness::Json& json, const Ceilings& c) {
  harness::Json bandwidth = harness::Json::object();
  for (int l = 0; l < kMemoryLevels; ++l)
    bandwidth[ops::name(static_cast<ops::MemoryLevel>(l))] =
        ceiling_json(c.bandwidth[static_cast<std::size_t>(l)]);
  harness::Json llc_sizes = harness::Json::array();
  for (const Ceiling& size : c.llc_sizes) llc_sizes.push_back(ceiling_json(size));
  harness::Json cache_edges = harness::Json::object();
  for (std::size_t l = 0; l < c.cache_edges.size(); ++l) {
    harness::Json edges = harness::Json::array();
    for (const Ceiling& edge : c.cache_edges[l]) edges.push_back(ceiling_json(edge));
    cache_edges[ops::name(static_cast<ops::MemoryLevel>(l))] = edges;
  }
  json = {
      {"peak_f64", ceiling_json(c.peak_f64)},
      {"peak_f32", ceiling_json(c.peak_f32)},
      {"fma_f64", ceiling_json(c.fma_f64)},
      {"fma_f32", ceiling_json(c.fma_f32)},
      {"gemm_f64", ceiling_json(c.gemm_f64)},
      {"gemm_f32", ceiling_json(c.gemm_f32)},
      {"bandwidth", bandwidth},
      {"llc_sizes", llc_sizes},
      {"cache_edges", cache_edges},
      {"caches",
       {{"l1_bytes", c.caches.l1_bytes}, {"l2_bytes", c.caches.l2_bytes}, {"llc_bytes", c.caches.llc_bytes}}},
      {"threads", c.threads}};
  json["handoff"] = ceiling_json(c.handoff);
}

void from_json(const harness::Json& json, Ceilings& c) {
  c.peak_f64 = ceiling_from(json.at("peak_f64"));
  c.peak_f32 = ceiling_from(json.at("peak_f32"));
  // Before the FMA peak (files of kernels version 2 and older) the peaks were the BLAS GEMM's.
  const auto part = [&json](const char* key, const Ceiling& otherwise) {
    const auto it = json.find(key);
    return it == json.end() ? otherwise : ceiling_from(*it);
  };
  c.fma_f64 = part("fma_f64", Ceiling{});
  c.fma_f32 = part("fma_f32", Ceiling{});
  c.gemm_f64 = part("gemm_f64", c.peak_f64);
  c.gemm_f32 = part("gemm_f32", c.peak_f32);
  const harness::Json& bandwidth = json.at("bandwidth");
  for (int l = 0; l < kMemoryLevels; ++l)
    c.bandwidth[static_cast<std::size_t>(l)] =
        ceiling_from(bandwidth.at(ops::name(static_cast<ops::MemoryLevel>(l))));
  c.llc_sizes.clear();
  if (const auto sizes = json.find("llc_sizes"); sizes != json.end()) {  // absent in older v1.2 files
    for (const harness::Json& size : *sizes) c.llc_sizes.push_back(ceiling_from(size));
  }
  const auto edges = json.find("cache_edges");  // absent before v1.9: the capacities hold
  for (std::size_t l = 0; l < c.cache_edges.size(); ++l) {
    c.cache_edges[l].clear();
    if (edges == json.end()) continue;
    const auto level = edges->find(ops::name(static_cast<ops::MemoryLevel>(l)));
    if (level == edges->end()) continue;
    for (const harness::Json& edge : *level) c.cache_edges[l].push_back(ceiling_from(edge));
  }
  c.handoff = part("handoff", Ceiling{});  // absent before v1.6 and at one thread: not measured
  const harness::Json& caches = json.at("caches");
  c.caches = {number_or_nan(caches, "l1_bytes"), number_or_nan(caches, "l2_bytes"),
              number_or_nan(caches, "llc_bytes")};
  c.threads = json.at("threads").get<int>();
}

void to_json(harness::Json& json, const VariantInfo& variant) {
  json = harness::Json{{"name", variant.name},
                       {"kind", name(variant.kind)},
                       {"provider", variant.provider},
                       {"strategy", variant.strategy},
                       {"available", !variant.unavailable},
                       {"why", variant.unavailable.value_or("")}};
}

void from_json(const harness::Json& json, VariantInfo& variant) {
  json.at("name").get_to(variant.name);
  const auto kind = json.at("kind").get<std::string>();
  bool known = false;
  for (VariantKind k : {VariantKind::Engine, VariantKind::Peer, VariantKind::Control}) {
    if (kind == name(k)) {
      variant.kind = k;
      known = true;
    }
  }
  if (!known) throw std::invalid_argument("unknown variant kind '" + kind + "'");
  json.at("provider").get_to(variant.provider);
  json.at("strategy").get_to(variant.strategy);
  variant.unavailable.reset();
  if (!json.at("available").get<bool>()) variant.unavailable = json.at("why").get<std::string>();
}

}  // namespace tfbench::workloads

namespace tfbench::harness {

namespace {
// BesideRounds' vectors by name (const or not). A NaN travels as null and is read back as NaN.
template <class Rounds, class Fn>
void for_each_beside_rounds(Rounds& r, const Fn& fn) {
  fn("bandwidth_gbs", r.bandwidth_gbs);
  fn("peak_gflops", r.peak_gflops);
  fn("handoff_us", r.handoff_us);
  fn("bandwidth_1t_gbs", r.bandwidth_1t_gbs);
  fn("peak_1t_gflops", r.peak_1t_gflops);
}
}  // namespace

void to_json(Json& json, const ResultRow& row) {
  json = impl::record_json<Json>(row, impl::result_columns());
  json["samples"] = row.samples;
  Json rounds = Json::object();
  for_each_beside_rounds(row.beside_rounds, [&](const char* name, const std::vector<double>& v) {
    if (!v.empty()) rounds[name] = v;
  });
  if (!rounds.empty()) json["beside_rounds"] = std::move(rounds);
}

void from_json(const Json& json, ResultRow& row) {
  impl::record_from_json(json, row, impl::result_columns());
  json.at("samples").get_to(row.samples);
  row.beside_rounds = {};
  const auto rounds = json.find("beside_rounds");
  if (rounds == json.end()) return;
  for_each_beside_rounds(row.beside_rounds, [&](const char* name, std::vector<double>& v) {
    const auto it = rounds->find(name);
    if (it == rounds->end()) return;
    for (const Json& x : *it) v.push_back(x.is_number() ? x.get<double>() : kNaN);
  });
}

}  // namespace tfbench::harness

namespace tfbench::harness::impl {
namespace {

void nulls_to_nan(Json& json) {
  if (json.is_null()) {
    json = std::numeric_limits<double>::quiet_NaN();
  } else if (json.is_structured()) {
    for (auto& member : json) nulls_to_nan(member);
  }
}

}  // namespace

void to_json(Json& json, const WorkerJob& job) {
  json = Json{{"space", job.space},
              {"threads", job.threads},
              {"seed", job.seed},
              {"verify_only", job.verify_only},
              {"measure_ceilings", job.measure_ceilings},
              {"cases", job.cases}};
  if (job.ceilings) json["ceilings"] = *job.ceilings;
  if (job.one_thread_ceilings) json["one_thread_ceilings"] = *job.one_thread_ceilings;
}

void from_json(const Json& json, WorkerJob& job) {
  json.at("space").get_to(job.space);
  json.at("threads").get_to(job.threads);
  json.at("seed").get_to(job.seed);
  json.at("verify_only").get_to(job.verify_only);
  json.at("measure_ceilings").get_to(job.measure_ceilings);
  json.at("cases").get_to(job.cases);
  job.ceilings.reset();
  if (json.contains("ceilings")) job.ceilings = json["ceilings"].get<workloads::Ceilings>();
  job.one_thread_ceilings.reset();
  if (json.contains("one_thread_ceilings"))
    job.one_thread_ceilings = json["one_thread_ceilings"].get<workloads::Ceilings>();
}

Json message(const char* msg, Json body) {
  body["msg"] = msg;
  return body;
}

Json parse_message(std::string_view text) {
  Json json = Json::parse(text);
  nulls_to_nan(json);
  return json;
}

}  // namespace tfbench::harness::impl
