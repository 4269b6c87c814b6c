#pragma once
// JSON through nlohmann-json: the worker <-> parent protocol, the `params`/`metrics` columns of the
// result file and `tfbench compare --format json`.
//
// `Json` sorts object keys. The `params` and `metrics` columns come from std::maps, so their text is
// the same as in files written before nlohmann (keys in std::map order). Integers and doubles stay
// distinct (3 vs 3.0) and doubles are written in their shortest round-trip form. NaN and infinities
// are written as null: JSON has no spelling for them.

#include <nlohmann/json.hpp>

#include <string>

namespace tfbench::harness {

using Json = nlohmann::json;

/// Compact text of `json`. Bytes that are not UTF-8 (an error message quoting a binary path) are
/// replaced with U+FFFD instead of throwing, so that a row can always be written.
template <class BasicJson>
std::string dump_json(const BasicJson& json) {
  return json.dump(-1, ' ', false, BasicJson::error_handler_t::replace);
}

}  // namespace tfbench::harness
