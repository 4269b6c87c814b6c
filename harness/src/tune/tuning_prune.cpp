#include "tune/tuning_prune.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <system_error>

namespace tfbench::harness::tune {

namespace fs = std::filesystem;

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
    const std::optional<TuningFileHead> head = read_tuning_head(path.string());
    if (!head) {
      ++counts.skipped;  // not a tuning file: not ours to remove
      continue;
    }
    std::string what = "format version " + std::to_string(head->version);  // an older build's
    bool own = false;
    if (head->version == kTuningFormatVersion) {
      if (!head->key) {
        ++counts.skipped;  // a damaged file of this version: left for a person to look at
        continue;
      }
      own = !key_mismatch(*head->key, here);
      what = head->key->cpu_model + ", revision " + head->key->git_revision.substr(0, 12);
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
