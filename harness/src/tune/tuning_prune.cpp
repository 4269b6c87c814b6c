#include "tune/tuning_prune.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <system_error>

#include "results/atomic_write.hpp"
#include "tfbench/harness/json.hpp"

namespace tfbench::harness::tune {

namespace fs = std::filesystem;

namespace {

/// A tuning file's format version, or nothing where `path` is not a tuning file (not JSON, another
/// format). Files of other versions are tuning files too: older builds wrote them, and no run of this
/// build reads them.
std::optional<int> tuning_format_version(const std::string& path) {
  const auto text = impl::read_whole_file(path);
  if (!text) return std::nullopt;
  const Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get<std::string>() != "tfbench-tuning")
    return std::nullopt;
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) return std::nullopt;
  return version->get<int>();
}

}  // namespace

PruneCounts prune_tuning_dir(const std::string& dir, const double days, const TuningKey& here,
                             std::ostream& out) {
  PruneCounts counts;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out << "tfbench tune --prune: " << dir << ": " << ec.message() << "; nothing removed\n";
    return counts;
  }
  const auto now = fs::file_time_type::clock::now();
  const auto period = std::chrono::duration_cast<fs::file_time_type::duration>(
      std::chrono::duration<double, std::ratio<86400>>(days));
  for (const fs::directory_entry& entry : it) {
    const fs::path& path = entry.path();
    if (path.extension() != ".json" || !entry.is_regular_file(ec)) continue;
    const std::optional<int> version = tuning_format_version(path.string());
    if (!version) {
      ++counts.skipped;  // not a tuning file: not ours to remove
      continue;
    }
    std::string what = "format version " + std::to_string(*version);  // an older build's
    bool own = false;
    if (*version == kTuningFormatVersion) {
      try {
        const TuningKey key = read_tuning_file(path.string()).key;
        own = !key_mismatch(key, here);
        what = key.cpu_model + ", revision " + key.git_revision.substr(0, 12);
      } catch (const std::exception&) {
        ++counts.skipped;  // a damaged file of this version: left for a person to look at
        continue;
      }
    }
    const auto used = entry.last_write_time(ec);
    if (ec || own || now - used <= period) {
      ++counts.kept;
      continue;
    }
    const double age_days = std::chrono::duration<double, std::ratio<86400>>(now - used).count();
    if (fs::remove(path, ec) && !ec) {
      ++counts.removed;
      out << "removed " << path.string() << " (" << what << ", unused for " << static_cast<int>(age_days)
          << " days)\n";
    } else {
      ++counts.failed;
      out << "could not remove " << path.string() << ": " << ec.message() << "\n";
    }
  }
  out << "tfbench tune --prune: " << counts.removed << " removed, " << counts.kept << " kept";
  if (counts.failed > 0) out << ", " << counts.failed << " could not be removed";
  if (counts.skipped > 0) out << ", " << counts.skipped << " other file(s) left";
  out << " (" << dir << ")\n";
  return counts;
}

void mark_tuning_used(const std::string& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

}  // namespace tfbench::harness::tune
