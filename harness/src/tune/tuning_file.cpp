// The tuning file's JSON form, its key check and its default place (tune/tuning_file.hpp).

#include "tune/tuning_file.hpp"
#include "tune/tuning_prune.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "results/atomic_write.hpp"
#include "tfbench/harness/build_info.hpp"
#include "tfbench/harness/json.hpp"
#include "tfbench/harness/openmp_runtime.hpp"
#include "tfbench/harness/sha256.hpp"
#include "tfbench/harness/system_info.hpp"
#include "util/json_values.hpp"

namespace tfbench::harness::tune {
namespace {

using ops::BatchedFamily;

/// The "format" member every tuning file carries (its "version" is kTuningFormatVersion).
constexpr const char* kTuningFormat = "tfbench-tuning";

const char* family_name(BatchedFamily f) {
  return f == BatchedFamily::Gemm ? "gemm" : "solve";
}

BatchedFamily parse_family(const std::string& text) {
  if (text == "gemm") return BatchedFamily::Gemm;
  if (text == "solve") return BatchedFamily::Solve;
  throw std::runtime_error("family '" + text + "' (expected gemm or solve)");
}

BatchStrategy parse_strategy(const std::string& text) {
  for (BatchStrategy s : {BatchStrategy::Sequential, BatchStrategy::OuterParallel,
                          BatchStrategy::ProviderItems, BatchStrategy::WholeBatchVendor}) {
    if (text == name(s)) return s;
  }
  throw std::runtime_error("strategy '" + text +
                           "' (expected sequential, outer-parallel, provider-items or "
                           "whole-batch-vendor)");
}

ops::ItemProvider parse_provider(const std::string& text) {
  if (auto p = ops::parse_item_provider(text)) return *p;
  throw std::runtime_error("provider '" + text +
                           "' (expected specialized, libxsmm, kokkosbatched, blas or "
                           "vendor_batched)");
}

/// JSON has no NaN: a candidate that did not run has null times.
using impl::number_or_nan;
using impl::number_or_null;

Json key_json(const TuningKey& k) {
  return Json{{"cpu_model", k.cpu_model},           {"online_cpus", k.online_cpus},
              {"l1_bytes", k.caches.l1_bytes},      {"l2_bytes", k.caches.l2_bytes},
              {"llc_bytes", k.caches.llc_bytes},    {"tfbench_version", k.tfbench_version},
              {"git_revision", k.git_revision},     {"compiler", k.compiler},
              {"build_type", k.build_type},         {"build_flags", k.build_flags},
              {"kokkos_version", k.kokkos_version}, {"kokkos_kernels_version", k.kokkos_kernels_version},
              {"blas_config", k.blas_config},       {"openmp_runtime", k.openmp_runtime}};
}

TuningKey key_from(const Json& j) {
  TuningKey k;
  k.cpu_model = j.at("cpu_model").get<std::string>();
  k.online_cpus = j.at("online_cpus").get<int>();
  k.caches = {j.at("l1_bytes").get<double>(), j.at("l2_bytes").get<double>(),
              j.at("llc_bytes").get<double>()};
  k.tfbench_version = j.at("tfbench_version").get<std::string>();
  k.git_revision = j.at("git_revision").get<std::string>();
  k.compiler = j.at("compiler").get<std::string>();
  k.build_type = j.at("build_type").get<std::string>();
  k.build_flags = j.at("build_flags").get<std::string>();
  k.kokkos_version = j.at("kokkos_version").get<std::string>();
  k.kokkos_kernels_version = j.at("kokkos_kernels_version").get<std::string>();
  k.blas_config = j.at("blas_config").get<std::string>();
  // Absent in files written before the runtime was recorded: they were measured on libgomp, so the
  // empty value differs from any runtime found here and the file is ignored with the reason.
  k.openmp_runtime = j.value("openmp_runtime", std::string());
  return k;
}

/// A candidate's or choice's "prefetch", "streaming_stores" or "narrow_vectors": true, false, or null /
/// absent (the built-in rule).
std::optional<bool> optional_flag(const Json& j, const char* field) {
  const auto it = j.find(field);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) throw std::runtime_error(std::string(field) + " must be true, false or null");
  return it->get<bool>();
}

Json flag_json(const std::optional<bool>& flag) {
  return flag ? Json(*flag) : Json(nullptr);
}

Json class_json(const workloads::TuneClassResult& r) {
  Json candidates = Json::array();
  for (const auto& c : r.candidates) {
    candidates.push_back({{"provider", ops::name(c.provider)},
                          {"strategy", name(c.strategy)},
                          {"median_s", number_or_null(c.median_s)},
                          {"best_s", number_or_null(c.best_s > 0 ? c.best_s : std::nan(""))},
                          {"max_rel_error", number_or_null(c.max_rel_error)},
                          {"skipped", c.skipped},
                          {"prefetch", flag_json(c.prefetch)},
                          {"streaming_stores", flag_json(c.streaming_stores)},
                          {"narrow_vectors", flag_json(c.narrow_vectors)}});
  }
  Json j{{"family", family_name(r.cls.family)}, {"dtype", name(r.cls.dtype)}, {"item_dim", r.cls.item_dim},
         {"level", ops::name(r.cls.level)},     {"threads", r.cls.threads},   {"items", r.items},
         {"operand_bytes", r.operand_bytes},    {"candidates", candidates},   {"choice", nullptr}};
  if (r.choice) {
    j["choice"] = {{"provider", ops::name(r.choice->provider)},
                   {"strategy", r.choice->strategy ? Json(name(*r.choice->strategy)) : Json(nullptr)},
                   {"prefetch", flag_json(r.choice->prefetch)},
                   {"streaming_stores", flag_json(r.choice->streaming_stores)},
                   {"narrow_vectors", flag_json(r.choice->narrow_vectors)}};
  }
  j["host"] = {{"other_cpu", number_or_null(r.host_other_cpu)},
               {"steal", number_or_null(r.host_steal)},
               {"attempts", r.attempts},
               {"busy", r.busy_host}};
  return j;
}

workloads::TuneClassResult class_from(const Json& j) {
  workloads::TuneClassResult r;
  r.cls.family = parse_family(j.at("family").get<std::string>());
  const std::string dtype = j.at("dtype").get<std::string>();
  const auto tuned = parse_tuned_dtype(dtype);
  if (!tuned) throw std::runtime_error("dtype '" + dtype + "' (f64 and f32 are tuned)");
  r.cls.dtype = *tuned;
  r.cls.item_dim = j.at("item_dim").get<int>();
  const auto level = ops::parse_memory_level(j.at("level").get<std::string>());
  if (!level)
    throw std::runtime_error("level '" + j.at("level").get<std::string>() + "' (expected l1, l2, llc, dram)");
  r.cls.level = *level;
  r.cls.threads = j.at("threads").get<int>();
  if (r.cls.item_dim < 1 || r.cls.threads < 1) throw std::runtime_error("item_dim and threads must be >= 1");
  r.items = j.at("items").get<std::int64_t>();
  r.operand_bytes = j.at("operand_bytes").get<double>();
  if (!(r.operand_bytes >= 0)) throw std::runtime_error("operand_bytes must be >= 0 (0: not known)");
  r.cls.working_set_bytes = r.operand_bytes;  // where in its level the class was measured; 0: anywhere
  for (const Json& c : j.at("candidates")) {
    workloads::TuneCandidate t;
    t.provider = parse_provider(c.at("provider").get<std::string>());
    t.strategy = parse_strategy(c.at("strategy").get<std::string>());
    t.median_s = number_or_nan(c.at("median_s"));
    if (c.contains("best_s")) t.best_s = number_or_nan(c.at("best_s"));
    t.max_rel_error = number_or_nan(c.at("max_rel_error"));
    t.skipped = c.at("skipped").get<std::string>();
    t.prefetch = optional_flag(c, "prefetch");
    t.streaming_stores = optional_flag(c, "streaming_stores");
    t.narrow_vectors = optional_flag(c, "narrow_vectors");
    r.candidates.push_back(std::move(t));
  }
  const Json& choice = j.at("choice");
  if (!choice.is_null()) {
    ops::TuningChoice c;
    c.provider = parse_provider(choice.at("provider").get<std::string>());
    if (!choice.at("strategy").is_null())
      c.strategy = parse_strategy(choice.at("strategy").get<std::string>());
    c.prefetch = optional_flag(choice, "prefetch");
    c.streaming_stores = optional_flag(choice, "streaming_stores");
    c.narrow_vectors = optional_flag(choice, "narrow_vectors");
    r.choice = c;
  }
  // The host's load while the class was measured (files of 2026-12-03 on; older ones: not known).
  if (const auto host = j.find("host"); host != j.end()) {
    if (!host->is_object()) throw std::runtime_error("host must be an object");
    r.host_other_cpu = number_or_nan(host->at("other_cpu"));
    r.host_steal = number_or_nan(host->at("steal"));
    r.attempts = host->at("attempts").get<int>();
    r.busy_host = host->at("busy").get<bool>();
    if (r.attempts < 1) throw std::runtime_error("host.attempts must be >= 1");
  }
  return r;
}

std::string read_all(const std::string& path) {
  auto text = impl::read_whole_file(path);
  if (!text) throw std::runtime_error(path + ": cannot be read");
  return std::move(*text);
}

}  // namespace

std::optional<DType> parse_tuned_dtype(const std::string& text) {
  const auto dtype = parse_dtype(text);
  if (dtype == DType::F64 || dtype == DType::F32) return dtype;
  return std::nullopt;
}

TuningKey current_key() {
  const BuildInfo& b = build_info();
  TuningKey k;
  k.cpu_model = cpu_model();
  k.online_cpus = online_cpu_count();
  k.caches = workloads::detect_cache_sizes();
  k.tfbench_version = b.version;
  k.git_revision = b.git_revision;
  k.compiler = b.compiler;
  k.build_type = b.build_type;
  k.build_flags = b.build_flags;
  k.kokkos_version = b.kokkos_version;
  k.kokkos_kernels_version = b.kokkos_kernels_version;
  k.blas_config = blas_config_of_workers();
  k.openmp_runtime = openmp_runtime_library();
  return k;
}

std::optional<std::string> key_mismatch(const TuningKey& file, const TuningKey& here) {
  return impl::first_key_difference(key_json(file), key_json(here));
}

std::string default_tuning_path(const TuningKey& key) {
  return tfbench_cache_dir("TFBENCH_TUNING_DIR", "tuning") + "/" +
         sha256_hex(dump_json(key_json(key))).substr(0, 16) + ".json";
}

Json crossover_json(const workloads::ContractionCrossover& r) {
  Json points = Json::array();
  for (const auto& p : r.points) {
    points.push_back({{"n", p.n},
                      {"muladds", p.muladds},
                      {"direct_s", number_or_null(p.direct_s)},
                      {"gemm_s", number_or_null(p.gemm_s)},
                      {"max_rel_error", number_or_null(p.max_rel_error)}});
  }
  return {
      {"threads", r.threads},
      {"direct_max_muladds", r.direct_max_muladds},
      {"points", points},
      {"host", {{"other_cpu", number_or_null(r.host_other_cpu)}, {"steal", number_or_null(r.host_steal)}}},
      {"busy_host", r.busy_host}};
}

workloads::ContractionCrossover crossover_from(const Json& j) {
  workloads::ContractionCrossover r;
  r.threads = j.at("threads").get<int>();
  if (r.threads < 1) throw std::runtime_error("threads: expected >= 1");
  r.direct_max_muladds = j.at("direct_max_muladds").get<double>();
  if (!(r.direct_max_muladds >= 0) || !std::isfinite(r.direct_max_muladds))
    throw std::runtime_error("direct_max_muladds: expected a finite number >= 0");
  for (const Json& p : j.at("points")) {
    workloads::ContractionCrossoverPoint point;
    point.n = p.at("n").get<int>();
    point.muladds = p.at("muladds").get<double>();
    point.direct_s = number_or_nan(p.at("direct_s"));
    point.gemm_s = number_or_nan(p.at("gemm_s"));
    point.max_rel_error = number_or_nan(p.at("max_rel_error"));
    r.points.push_back(point);
  }
  if (j.contains("host")) {
    r.host_other_cpu = number_or_nan(j.at("host").at("other_cpu"));
    r.host_steal = number_or_nan(j.at("host").at("steal"));
  }
  r.busy_host = j.at("busy_host").get<bool>();
  return r;
}

/// The entries of array `name` of `j`, each read by `from`; an error names the entry ("classes[2]: ...").
template <class From>
auto entries_of(const Json& j, const char* name, From from) {
  std::vector<decltype(from(j))> out;
  const Json& entries = j.at(name);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    try {
      out.push_back(from(entries.at(i)));
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string(name) + "[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return out;
}

void write_tuning_file(const std::string& path, const TuningFile& file) {
  Json classes = Json::array();
  for (const auto& c : file.classes) classes.push_back(class_json(c));
  Json contraction = Json::array();
  for (const auto& c : file.contraction) contraction.push_back(crossover_json(c));
  const Json j{{"format", kTuningFormat},           {"version", kTuningFormatVersion},
               {"key", key_json(file.key)},         {"created_utc", file.created_utc},
               {"command_line", file.command_line}, {"classes", classes},
               {"contraction", contraction}};
  impl::write_file_creating_directories(path, j.dump(1) + "\n");  // ResultsWriteError names path
}

namespace {

/// The tuning file read from `path` as `text` (errors name the path).
TuningFile parse_tuning_file(const std::string& path, const std::string& text) {
  try {
    const Json j = Json::parse(text);
    if (j.at("format").get<std::string>() != kTuningFormat)
      throw std::runtime_error(std::string("format (expected \"") + kTuningFormat + "\")");
    const int version = j.at("version").get<int>();
    if (version != kTuningFormatVersion) {
      throw std::runtime_error("version " + std::to_string(version) + " (this tfbench reads version " +
                               std::to_string(kTuningFormatVersion) + ")");
    }
    TuningFile file;
    file.key = key_from(j.at("key"));
    file.created_utc = j.at("created_utc").get<std::string>();
    file.command_line = j.at("command_line").get<std::string>();
    file.classes = entries_of(j, "classes", class_from);
    file.contraction = entries_of(j, "contraction", crossover_from);
    return file;
  } catch (const Json::exception& e) {
    throw std::runtime_error(path + ": not a tuning file: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace

TuningFile read_tuning_file(const std::string& path) {
  return parse_tuning_file(path, read_all(path));
}

std::optional<TuningFileHead> read_tuning_head(const std::string& path) {
  const auto text = impl::read_whole_file(path);
  if (!text) return std::nullopt;
  const Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get<std::string>() != kTuningFormat)
    return std::nullopt;
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) return std::nullopt;
  TuningFileHead head;
  head.version = version->get<int>();
  if (head.version == kTuningFormatVersion) {
    try {
      head.key = key_from(j.at("key"));
    } catch (const Json::exception&) {
      // a damaged file of this version: no key
    }
  }
  return head;
}

std::shared_ptr<const ops::AutoTuning> to_auto_tuning(const TuningFile& file, std::string id) {
  auto tuning = std::make_shared<ops::AutoTuning>(std::move(id), file.key.caches);
  for (const auto& c : file.classes) {
    // A class still measured on a busy host after its retries is kept in the file, not trusted.
    if (!c.choice || c.busy_host) continue;
    std::vector<ops::TunedTime> times;
    for (const auto& k : c.candidates) {
      if (k.skipped.empty()) times.push_back({k.choice(), k.decisive_s(), k.median_s});
    }
    tuning->add(c.cls, *c.choice, std::move(times));
  }
  for (const auto& c : file.contraction) {
    if (!c.busy_host) tuning->set_direct_contraction(c.threads, c.direct_max_muladds);
  }
  return tuning;
}

LoadedTuning load_tuning(const std::string& path) {
  LoadedTuning out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out.refusal = path + ": no tuning file";
    return out;
  }
  try {
    // One read: the hash is of the bytes parsed.
    const std::string text = read_all(path);
    const TuningFile file = parse_tuning_file(path, text);
    out.sha256 = sha256_hex(text);
    if (auto why = key_mismatch(file.key, current_key())) {
      out.refusal = path + " was measured on another machine or build (" + *why + "); ignored";
      return out;
    }
    out.tuning = to_auto_tuning(file, out.sha256);
    mark_tuning_used(path);  // what `tune --prune` reads as its last use
  } catch (const std::exception& e) {
    out.refusal = std::string(e.what()) + "; ignored";
  }
  return out;
}

}  // namespace tfbench::harness::tune
