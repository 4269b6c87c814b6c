#include "export/values.hpp"

#include "tfbench/harness/export.hpp"

#include <charconv>
#include <cmath>

namespace tfbench::harness::impl {

nlohmann::ordered_json parse_object(const std::string& text, const std::string& where) {
  nlohmann::ordered_json value = nlohmann::ordered_json::parse(text, nullptr, false);
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
