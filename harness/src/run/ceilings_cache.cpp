#include "run/ceilings_cache.hpp"

#include <memory>
#include <stdexcept>

#include "results/atomic_write.hpp"
#include "run/protocol.hpp"
#include "tfbench/harness/build_info.hpp"
#include "tfbench/harness/sha256.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/workloads/tuning.hpp"
#include "util/json_values.hpp"

namespace tfbench::harness::impl {
namespace {

// Raised when the measuring code changes: ceilings measured by an older kernel are not reused.
constexpr int kCeilingsKernelsVersion = 6;  // 2: the LLC ladder (Ceilings::llc_sizes); 3: the FMA peaks;
                                            // 4: each level the higher of the triad and the in-place kernel;
                                            // 5: their arrays on huge pages, staggered like the operands;
                                            // 6: each per-core cache's edge (Ceilings::cache_edges)

bool same_entry(const Json& e, const CeilingsEntryKey& k) {
  return e.at("threads").get<int>() == k.threads && e.at("pinned").get<bool>() == k.pinned;
}

}  // namespace

Json ceilings_cache_key() {
  // Not the revision: the ceilings belong to the machine, the libraries and the flags that compiled
  // the triad, which a commit rarely changes (kCeilingsKernelsVersion marks when it does).
  const BuildInfo& b = build_info();
  const ops::CacheSizes caches = workloads::detect_cache_sizes();
  return Json{{"cpu_model", cpu_model()},
              {"online_cpus", online_cpu_count()},
              {"l1_bytes", caches.l1_bytes},
              {"l2_bytes", caches.l2_bytes},
              {"llc_bytes", caches.llc_bytes},
              {"compiler", b.compiler},
              {"build_type", b.build_type},
              {"build_flags", b.build_flags},
              {"blas_config", blas_config_of_workers()},
              {"transparent_hugepage", transparent_hugepage_mode()},
              {"kernels", kCeilingsKernelsVersion}};
}

std::string default_ceilings_cache_path(const Json& key) {
  return tfbench_cache_dir("TFBENCH_CEILINGS_DIR", "ceilings") + "/" +
         sha256_hex(dump_json(key)).substr(0, 16) + ".json";
}

std::optional<CachedCeilings> read_cached_ceilings(const std::string& path, const Json& key,
                                                   const CeilingsEntryKey& entry, std::string& why) {
  why.clear();
  const auto text = read_whole_file(path);
  if (!text) {
    why = path + ": absent";
    return std::nullopt;
  }
  try {
    const Json j = Json::parse(*text);
    if (j.at("format") != "tfbench-ceilings" || j.at("version") != kCeilingsFormatVersion)
      throw std::runtime_error("not a version " + std::to_string(kCeilingsFormatVersion) + " ceilings file");
    if (const auto differs = first_key_difference(j.at("key"), key)) {
      why = path + ": measured for another machine or build (" + *differs + ")";
      return std::nullopt;
    }
    for (const Json& e : j.at("entries")) {
      if (!same_entry(e, entry)) continue;
      CachedCeilings c;
      e.at("ceilings").get_to(c.ceilings);
      c.measured_utc = e.at("measured_utc").get<std::string>();
      return c;
    }
    return std::nullopt;
  } catch (const std::exception& error) {
    why = path + ": unreadable (" + error.what() + ")";
    return std::nullopt;
  }
}

void store_cached_ceilings(const std::string& path, const Json& key, const CeilingsEntryKey& entry,
                           const CachedCeilings& value) {
  Json entries = Json::array();
  if (const auto text = read_whole_file(path)) {
    // Keep the other configurations of a file of this key; a foreign or broken file is replaced.
    try {
      const Json j = Json::parse(*text);
      if (j.at("key") == key && j.at("version") == kCeilingsFormatVersion) {
        for (const Json& e : j.at("entries"))
          if (!same_entry(e, entry)) entries.push_back(e);
      }
    } catch (const std::exception&) {
    }
  }
  entries.push_back(Json{{"threads", entry.threads},
                         {"pinned", entry.pinned},
                         {"measured_utc", value.measured_utc},
                         {"ceilings", value.ceilings}});
  const Json j{{"format", "tfbench-ceilings"},
               {"version", kCeilingsFormatVersion},
               {"key", key},
               {"entries", entries}};
  write_file_creating_directories(path, j.dump(1) + "\n");
}

MeasuresCeilingsFn ceilings_measured_by(CeilingsMode mode, bool pin) {
  if (mode != CeilingsMode::Cached) {
    const bool measures = mode == CeilingsMode::Measure;
    return [measures](const WorkerPlan&) { return measures; };
  }
  const auto key = std::make_shared<const Json>(ceilings_cache_key());
  const std::string path = default_ceilings_cache_path(*key);
  return [key, path, pin](const WorkerPlan& w) {
    std::string why;
    return !read_cached_ceilings(path, *key, {w.threads, pin}, why).has_value();
  };
}

void fill_worker_ceilings(WorkerRow& row, const workloads::Ceilings& c, const std::string& source) {
  using ops::MemoryLevel;
  row.ceiling_gflops = c.gflops();
  row.ceiling_gbs = c.gbs();
  row.ceiling_gflops_f32 = c.peak_f32.best;
  row.ceiling_l1_gbs = c.level(MemoryLevel::L1).best;
  row.ceiling_l2_gbs = c.level(MemoryLevel::L2).best;
  row.ceiling_llc_gbs = c.level(MemoryLevel::LLC).best;
  row.ceilings = source == "off" ? "" : dump_json(Json(c));
  row.ceilings_source = source;
}

}  // namespace tfbench::harness::impl
