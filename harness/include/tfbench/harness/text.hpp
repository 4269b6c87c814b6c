#pragma once
// Small text helpers shared by the commands: nearest-name suggestions, globs, number formatting.

#include <string>
#include <string_view>
#include <vector>

namespace tfbench::harness {

/// Levenshtein distance between two names.
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `name` when it is close enough to be a likely typo, else empty.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);
/// Shell-style glob (`*`, `?`, `[...]`) over the whole text.
bool glob_match(const std::string& pattern, const std::string& text);
/// `text` in ASCII lower case ("SkylakeX" -> "skylakex").
std::string to_lower(std::string text);
/// "a, b, c".
std::string join(const std::vector<std::string>& parts, std::string_view separator = ", ");
/// Seconds with a readable unit: "812 ns", "3.41 us", "12.0 ms", "1.25 s".
std::string format_seconds(double seconds);
/// A number with `digits` significant digits; NaN prints as "-".
std::string format_number(double value, int digits = 3);
/// A speedup or ratio as "1.05x"; NaN prints as "-".
std::string format_speedup(double ratio);
/// A fraction as a percentage: "68%", "4.2%"; NaN prints as "-".
std::string format_percent(double fraction);
/// Now as "2026-11-29T10:22:03.481Z" (iso, milliseconds) or "20261129T102203Z" (compact).
std::string utc_now_iso();
std::string utc_now_compact();

}  // namespace tfbench::harness
