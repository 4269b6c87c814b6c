#include "tfbench/harness/text.hpp"

#include <fnmatch.h>
#include <cctype>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace tfbench::harness {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  // A typo changes a few characters; a third of the name is the most we still call a typo.
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  return best_distance <= limit ? best : std::string();
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string to_lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  if (seconds == 0.0) return "0 s";
  const double a = std::fabs(seconds);
  const char* unit = "s";
  double v = seconds;
  if (a < 1e-6) {
    v = seconds * 1e9;
    unit = "ns";
  } else if (a < 1e-3) {
    v = seconds * 1e6;
    unit = "us";
  } else if (a < 1.0) {
    v = seconds * 1e3;
    unit = "ms";
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.3g %s", v, unit);
  return buf;
}

std::string format_number(double value, int digits) {
  if (std::isnan(value)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, value);
  return buf;
}

std::string format_speedup(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.2fx", ratio);
  return buf;
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  const double pct = 100.0 * fraction;
  char buf[48];
  std::snprintf(buf, sizeof(buf), std::fabs(pct) >= 10.0 ? "%.0f%%" : "%.1f%%", pct);
  return buf;
}

namespace {
std::string format_utc(const char* format, std::time_t now = std::time(nullptr)) {
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}
}  // namespace

std::string utc_now_iso() {
  // Milliseconds: runs of a merged file are ordered (and perf-gate rounds paired) by start time,
  // and short filtered runs start within the same second.
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::string text = format_utc("%Y-%m-%dT%H:%M:%S", std::chrono::system_clock::to_time_t(now));
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03dZ", static_cast<int>(ms));
  return text + frac;
}

std::string utc_now_compact() {
  return format_utc("%Y%m%dT%H%M%SZ");
}

}  // namespace tfbench::harness
