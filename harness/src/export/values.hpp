#pragma once
// What the exports share: the params and metrics strings of a row parsed as JSON objects, and
// numbers written as short text that reads back to the same double.

#include "tfbench/harness/results.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace tfbench::harness::impl {

/// `text` as a JSON object (key order kept); ExportError naming `where` when it is not one.
nlohmann::ordered_json parse_object(const std::string& text, const std::string& where);

/// "where" a row is, for messages: "run <id>, row <i> (<case_id>)".
std::string row_place(const RunData& run, std::size_t index);

/// The shortest text that reads back as `value` ("0.1", "1e-06", "nan", "inf").
std::string number_text(double value);

}  // namespace tfbench::harness::impl
