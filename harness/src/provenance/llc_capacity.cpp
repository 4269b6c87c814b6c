#include "provenance/llc_capacity.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "results/atomic_write.hpp"
#include "tfbench/harness/sha256.hpp"
#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"
#include "tfbench/workloads/llc_probe.hpp"

namespace tfbench::harness {
namespace impl {
namespace {

// Raised when the sweep or its reading changes: capacities measured the old way are measured again.
constexpr int kLlcProbeVersion = 2;  // 2: the sweep's array on huge pages

std::string mib(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024) + 0.5)) + " MiB";
}

}  // namespace

Json llc_probe_key(const workloads::DetectedCaches& reported) {
  return Json{{"cpu_model", cpu_model()},
              {"online_cpus", online_cpu_count()},
              {"l1_bytes", reported.sizes.l1_bytes},
              {"l2_bytes", reported.sizes.l2_bytes},
              {"reported_llc_bytes", reported.reported_llc_bytes},
              {"probe", kLlcProbeVersion}};
}

std::string llc_probe_path(const Json& key) {
  return tfbench_cache_dir("TFBENCH_MACHINE_DIR", "machine") + "/llc-" +
         sha256_hex(key.dump()).substr(0, 16) + ".json";
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::optional<KeptLlc> read_llc_probe(const std::string& path, const Json& key, double now_unix) {
  const auto text = read_whole_file(path);
  if (!text) return std::nullopt;
  try {
    const Json j = Json::parse(*text);
    if (j.at("format") != "tfbench-llc-probe" || j.at("key") != key) return std::nullopt;
    KeptLlc kept;
    kept.llc_bytes = j.at("llc_bytes").get<double>();
    if (!(kept.llc_bytes >= 0)) return std::nullopt;
    kept.provisional = !j.value("busy_load", Json()).is_null();
    kept.measured_unix = j.value("measured_unix", 0.0);
    if (kept.provisional && !(now_unix - kept.measured_unix < kProvisionalLlcSeconds)) return std::nullopt;
    return kept;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void store_llc_probe(const std::string& path, const Json& key, double llc_bytes, const Json& sweep,
                     const Json& busy_load, double now_unix) {
  const Json j{{"format", "tfbench-llc-probe"},
               {"key", key},
               {"llc_bytes", llc_bytes},
               {"measured_utc", utc_now_iso()},
               {"measured_unix", now_unix},
               {"busy_load", busy_load},
               {"sweep", sweep}};
  write_file_creating_directories(path, j.dump(1) + "\n");
}

}  // namespace impl

void settle_llc_capacity(std::ostream& log) {
  using workloads::kLlcBytesVariable;
  if (const char* user = std::getenv(kLlcBytesVariable); user && *user) {
    if (!(workloads::parse_byte_size(user) > 0))
      throw std::runtime_error(std::string(kLlcBytesVariable) + "='" + user +
                               "': expected a positive byte count such as 33554432, 32768K, 32M or 1G");
    return;
  }
  workloads::DetectedCaches reported =
      workloads::detect_cache_sizes_from(workloads::kSysfsCacheDir, workloads::cpuid_cache_sizes());
  if (reported.llc_source != "cpuid") return;  // sysfs knows it (or nothing does: the defaults apply)
  const Json key = impl::llc_probe_key(reported);
  const std::string path = impl::llc_probe_path(key);
  const double now = impl::unix_now();
  const std::optional<impl::KeptLlc> kept = impl::read_llc_probe(path, key, now);
  std::optional<double> capacity;
  if (kept) capacity = kept->llc_bytes;
  if (kept && kept->provisional) {
    const double minutes = (now - kept->measured_unix) / 60;
    log << "tfbench: LLC " << impl::mib(kept->llc_bytes) << " as measured on a busy host "
        << static_cast<int>(minutes + 0.5) << " min ago (provisional: measured again once "
        << static_cast<int>(impl::kProvisionalLlcSeconds / 60) << " min old; " << path << ")\n";
  }
  if (!capacity) {
    log << "tfbench: measuring the last-level cache's capacity (sysfs lists no L3; CPUID reports "
        << impl::mib(reported.reported_llc_bytes) << ")..." << std::flush;
    Json points = Json::array();
    const auto sweep = workloads::measure_llc_sweep(
        reported.sizes.l2_bytes, reported.reported_llc_bytes, [&](const workloads::SweepPoint& p) {
          points.push_back(Json{{"bytes", p.bytes}, {"gbs", p.gbs}});
          log << " " << impl::mib(p.bytes) << " " << static_cast<long long>(p.gbs + 0.5) << " GB/s,"
              << std::flush;
        });
    capacity = std::round(workloads::llc_capacity_from_sweep(sweep.points) / 1024) * 1024;
    log << (*capacity > 0 ? " ends near " + impl::mib(*capacity)
                          : std::string(" no end seen: the report stands"));
    Json busy_load;  // null: a quiet host
    if (sweep.load.busy()) {
      // A sweep beside other work misplaces the end (77 MiB against 28): kept for the next runs, so
      // that they size their levels alike, but only for a while.
      busy_load = Json{{"other", sweep.load.other()}, {"steal", sweep.load.steal()}};
      log << " (on a busy host: other work " << static_cast<int>(100 * sweep.load.other() + 0.5)
          << "% of the CPUs, steal " << static_cast<int>(100 * sweep.load.steal() + 0.5)
          << "%; kept as provisional, measured again after "
          << static_cast<int>(impl::kProvisionalLlcSeconds / 60) << " min, in " << path << ")\n";
    } else {
      log << " (kept in " << path << ")\n";
    }
    try {
      impl::store_llc_probe(path, key, *capacity, points, busy_load, now);  // when the sweep began
    } catch (const std::exception& error) {
      log << "tfbench: could not keep the measured capacity: " << error.what() << "\n";
    }
  }
  if (*capacity > 0)
    setenv(workloads::kLlcMeasuredVariable, std::to_string(static_cast<long long>(*capacity)).c_str(), 1);
}

}  // namespace tfbench::harness
