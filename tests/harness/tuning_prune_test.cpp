// `tfbench tune --prune DAYS`: the tuning files no run has used for DAYS days are removed, except this
// build's own; files used within the period, other files and this build's stay; a run's use marks a
// file used.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tune/tuning_file.hpp"
#include "tune/tuning_prune.hpp"

using namespace tfbench::harness::tune;
namespace fs = std::filesystem;

namespace {

/// A tuning file of `revision` (this machine's key otherwise) at dir/name, last used `days_ago`.
fs::path tuning_file_at(const fs::path& dir, const std::string& name, const std::string& revision,
                        double days_ago) {
  TuningFile file;
  file.key = current_key();
  file.key.git_revision = revision;
  file.created_utc = "2026-12-02T00:00:00Z";
  file.command_line = "tfbench tune";
  const fs::path path = dir / name;
  write_tuning_file(path.string(), file);
  const auto age = std::chrono::duration_cast<fs::file_time_type::duration>(
      std::chrono::duration<double, std::ratio<86400>>(days_ago));
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
  return path;
}

}  // namespace

TEST_CASE("tune --prune removes the tuning files unused for the period, never this build's",
          "[tuning][prune]") {
  const fs::path dir = fs::temp_directory_path() / ("tfbench-prune-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string here = current_key().git_revision;
  const fs::path old_other = tuning_file_at(dir, "a.json", "0123456789ab-old", 40);
  const fs::path recent_other = tuning_file_at(dir, "b.json", "0123456789ab-recent", 3);
  const fs::path old_own = tuning_file_at(dir, "c.json", here, 400);
  const fs::path not_tuning = dir / "notes.json";
  std::ofstream(not_tuning) << "{\"not\": \"a tuning file\"}\n";
  fs::last_write_time(not_tuning, fs::file_time_type::clock::now() - std::chrono::hours(24 * 400));
  std::ofstream(dir / "odd.json") << "{\"format\": 4}\n";  // JSON, not a tuning file: left
  const fs::path other_kind = dir / "readme.txt";
  std::ofstream(other_kind) << "kept\n";
  // An older build's file, of a format version this tfbench does not read: a tuning file all the same.
  const fs::path old_format = dir / "v1.json";
  std::ofstream(old_format) << "{\"format\": \"tfbench-tuning\", \"version\": 1, \"key\": {}}\n";
  fs::last_write_time(old_format, fs::file_time_type::clock::now() - std::chrono::hours(24 * 60));
  // This version's file with a malformed key: damaged, left for a person to look at.
  const fs::path damaged = dir / "damaged.json";
  std::ofstream(damaged) << "{\"format\": \"tfbench-tuning\", \"version\": " << kTuningFormatVersion
                         << ", \"key\": 7}\n";
  fs::last_write_time(damaged, fs::file_time_type::clock::now() - std::chrono::hours(24 * 60));

  std::ostringstream out;
  const PruneCounts counts = prune_tuning_dir(dir.string(), 30, current_key(), out);
  INFO(out.str());
  CHECK(counts.removed == 2);
  CHECK(counts.kept == 2);
  CHECK(counts.skipped == 3);
  CHECK(counts.failed == 0);
  CHECK_FALSE(fs::exists(old_other));
  CHECK_FALSE(fs::exists(old_format));
  CHECK(fs::exists(recent_other));
  CHECK(fs::exists(old_own));
  CHECK(fs::exists(not_tuning));
  CHECK(fs::exists(other_kind));
  CHECK(fs::exists(damaged));
  CHECK(out.str().find("removed " + old_other.string()) != std::string::npos);
  CHECK(out.str().find("removed " + old_format.string() + " (format version 1") != std::string::npos);
  CHECK(out.str().find("2 removed, 2 kept") != std::string::npos);

  // A shorter period takes the three-day-old file too; this build's own still stays.
  CHECK(prune_tuning_dir(dir.string(), 1, current_key(), out).removed == 1);
  CHECK_FALSE(fs::exists(recent_other));
  CHECK(fs::exists(old_own));

  // A directory that is not there: a message, nothing removed.
  std::ostringstream missing;
  CHECK(prune_tuning_dir((dir / "none").string(), 1, current_key(), missing).removed == 0);
  CHECK(missing.str().find("nothing removed") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a run's use of a tuning file marks it used, so that --prune keeps it", "[tuning][prune]") {
  const fs::path dir = fs::temp_directory_path() / ("tfbench-prune-use-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path own = tuning_file_at(dir, "own.json", current_key().git_revision, 90);
  const auto before = fs::last_write_time(own);
  const LoadedTuning loaded = load_tuning(own.string());
  REQUIRE(loaded.tuning != nullptr);
  CHECK(fs::last_write_time(own) > before + std::chrono::hours(24 * 80));
  // A refused file (another build's) is not marked: no run used it.
  const fs::path other = tuning_file_at(dir, "other.json", "0123456789ab-other", 90);
  const auto other_before = fs::last_write_time(other);
  CHECK(load_tuning(other.string()).tuning == nullptr);
  CHECK(fs::last_write_time(other) == other_before);
  fs::remove_all(dir);
}
