#include "export/values.hpp"

#include "tfbench/harness/export.hpp"

#include <charconv>
#include <cmath>

namespace tfbench::harness::impl {

namespace {
/// Files written before the move to nlohmann-json hold non-finite metrics as bare NaN, Infinity and
/// -Infinity tokens, which strict JSON (and nlohmann) rejects; they read as null, as new files write them.
std::string without_non_finite_tokens(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* token : {"-Infinity", "Infinity", "NaN"}) {
      const std::size_t n = std::char_traits<char>::length(token);
      if (text.compare(i, n, token) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}
}  // namespace

nlohmann::ordered_json parse_object(const std::string& text, const std::string& where) {
  nlohmann::ordered_json value =
      nlohmann::ordered_json::parse(without_non_finite_tokens(text), nullptr, false);
  if (value.is_discarded() || !value.is_object())
    throw ExportError(where + ": '" + text + "' is not a JSON object");
  return value;
}

std::string row_place(const RunData& run, std::size_t index) {
  return "run " + run.info.run_id + ", row " + std::to_string(index) + " (" + run.results[index].case_id +
         ")";
}

std::string number_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  return std::string(buffer, end);
}

}  // namespace tfbench::harness::impl
