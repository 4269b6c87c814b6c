#include "run/protocol.hpp"

#include <limits>

namespace tfbench::harness::impl {

Json to_json(const workloads::Params& params) {
  Json out = Json::object();
  for (const auto& [key, value] : params.values()) {
    if (const auto* i = std::get_if<std::int64_t>(&value))
      out.set(key, *i);
    else if (const auto* d = std::get_if<double>(&value))
      out.set(key, *d);
    else if (const auto* b = std::get_if<bool>(&value))
      out.set(key, *b);
    else
      out.set(key, std::get<std::string>(value));
  }
  return out;
}

workloads::Params params_from_json(const Json& json) {
  workloads::Params params;
  for (const auto& [key, value] : json.as_object()) {
    switch (value.type()) {
      case Json::Type::Int:
        params.set(key, value.as_int());
        break;
      case Json::Type::Double:
        params.set(key, value.as_double());
        break;
      case Json::Type::Bool:
        params.set(key, value.as_bool());
        break;
      case Json::Type::String:
        params.set(key, value.as_string());
        break;
      default:
        throw JsonError("parameter '" + key + "' has no scalar value");
    }
  }
  return params;
}

Json to_json(const WorkerJob& job) {
  Json out = Json::object();
  out.set("space", name(job.space));
  out.set("threads", job.threads);
  out.set("seed", static_cast<std::int64_t>(job.seed));
  out.set("verify_only", job.verify_only);
  out.set("measure_ceilings", job.measure_ceilings);
  if (job.ceilings) {
    out.set("ceilings", Json(Json::Object{{"gflops", job.ceilings->gflops}, {"gbs", job.ceilings->gbs}}));
  }
  Json cases = Json::array();
  for (const auto& c : job.cases) {
    Json j = Json::object();
    j.set("index", c.index);
    j.set("family", c.family);
    j.set("params", to_json(c.params));
    j.set("group_id", c.group_id);
    j.set("variants", Json::Array(c.variants.begin(), c.variants.end()));
    j.set("repetitions", c.repetitions);
    j.set("min_time", c.min_time);
    cases.push_back(std::move(j));
  }
  out.set("cases", std::move(cases));
  return out;
}

WorkerJob job_from_json(const Json& json) {
  WorkerJob job;
  const auto space = parse_exec_space(json.at("space").as_string());
  if (!space) throw JsonError("unknown execution space " + json.at("space").as_string());
  job.space = *space;
  job.threads = static_cast<int>(json.at("threads").as_int());
  job.seed = static_cast<std::uint64_t>(json.at("seed").as_int());
  job.verify_only = json.at("verify_only").as_bool();
  job.measure_ceilings = json.at("measure_ceilings").as_bool();
  if (const Json* c = json.find("ceilings")) {
    job.ceilings = workloads::Ceilings{c->at("gflops").as_double(), c->at("gbs").as_double()};
  }
  for (const auto& j : json.at("cases").as_array()) {
    JobCase c;
    c.index = static_cast<std::size_t>(j.at("index").as_int());
    c.family = j.at("family").as_string();
    c.params = params_from_json(j.at("params"));
    c.group_id = j.at("group_id").as_string();
    for (const auto& v : j.at("variants").as_array()) c.variants.push_back(v.as_string());
    c.repetitions = static_cast<int>(j.at("repetitions").as_int());
    c.min_time = j.at("min_time").as_double();
    job.cases.push_back(std::move(c));
  }
  return job;
}

Json to_json(const Hello& h) {
  return Json(Json::Object{{"msg", "hello"},
                           {"pid", h.pid},
                           {"exec_space", h.exec_space},
                           {"threads", h.threads},
                           {"kokkos_threads", h.kokkos_threads},
                           {"blas_threads_requested", h.blas_threads_requested},
                           {"blas_threads", h.blas_threads},
                           {"affinity_cpus", h.affinity_cpus},
                           {"omp_proc_bind", h.omp_proc_bind},
                           {"omp_places", h.omp_places},
                           {"verified", h.verified},
                           {"why", h.why}});
}

Hello hello_from_json(const Json& j) {
  Hello h;
  h.pid = j.at("pid").as_int();
  h.exec_space = j.at("exec_space").as_string();
  h.threads = j.at("threads").as_int();
  h.kokkos_threads = j.at("kokkos_threads").as_int();
  h.blas_threads_requested = j.at("blas_threads_requested").as_int();
  h.blas_threads = j.at("blas_threads").as_int();
  h.affinity_cpus = j.at("affinity_cpus").as_int();
  h.omp_proc_bind = j.at("omp_proc_bind").as_string();
  h.omp_places = j.at("omp_places").as_string();
  h.verified = j.at("verified").as_bool();
  h.why = j.at("why").as_string();
  return h;
}

Json to_json(const VariantOutcome& o) {
  return Json(Json::Object{{"variant", o.variant},
                           {"variant_kind", o.variant_kind},
                           {"provider", o.provider},
                           {"strategy", o.strategy},
                           {"status", o.status},
                           {"error", o.error},
                           {"samples", Json::Array(o.samples.begin(), o.samples.end())},
                           {"iterations", o.iterations},
                           {"flops", o.flops},
                           {"bytes", o.bytes},
                           {"allocations", o.allocations},
                           {"pool_hits", o.pool_hits},
                           {"transfers", o.transfers},
                           {"bytes_retained", o.bytes_retained},
                           {"max_rel_error", o.max_rel_error},
                           {"tolerance", o.tolerance},
                           {"metrics", o.metrics},
                           {"overhead_s", o.overhead_s}});
}

VariantOutcome outcome_from_json(const Json& j) {
  VariantOutcome o;
  o.variant = j.at("variant").as_string();
  o.variant_kind = j.at("variant_kind").as_string();
  o.provider = j.at("provider").as_string();
  o.strategy = j.at("strategy").as_string();
  o.status = j.at("status").as_string();
  o.error = j.at("error").as_string();
  for (const auto& s : j.at("samples").as_array()) o.samples.push_back(s.as_double());
  o.iterations = j.at("iterations").as_int();
  o.flops = j.at("flops").as_double();
  o.bytes = j.at("bytes").as_double();
  o.allocations = j.at("allocations").as_double();
  o.pool_hits = j.at("pool_hits").as_double();
  o.transfers = j.at("transfers").as_double();
  o.bytes_retained = j.at("bytes_retained").as_double();
  o.max_rel_error = j.at("max_rel_error").as_double();
  o.tolerance = j.at("tolerance").as_double();
  o.metrics = j.at("metrics");
  o.overhead_s = j.at("overhead_s").as_double();
  return o;
}

}  // namespace tfbench::harness::impl
