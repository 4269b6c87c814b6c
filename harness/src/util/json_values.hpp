#pragma once
// Small JSON conventions the per-machine cache files (tuning, ceilings) and the worker protocol share:
// a number that may be NaN, and which field of a stored key differs from this machine's.

#include <cmath>
#include <optional>
#include <string>

#include "tfbench/harness/json.hpp"

namespace tfbench::harness::impl {

/// JSON has no NaN: a non-finite number is written as null.
inline Json number_or_null(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

/// null reads back as NaN; anything else must be a number.
inline double number_or_nan(const Json& j) {
  return j.is_null() ? std::nan("") : j.get<double>();
}

/// The first field of `here` that `file` lacks or holds another value for, as
/// "cpu_model: the file's \"X\", here \"Y\"" (fields in key order); empty when every field matches.
inline std::optional<std::string> first_key_difference(const Json& file, const Json& here) {
  for (auto it = here.begin(); it != here.end(); ++it) {
    const bool has = file.contains(it.key());
    if (has && file.at(it.key()) == *it) continue;
    return it.key() + ": the file's " + (has ? file.at(it.key()).dump() : std::string("none")) + ", here " +
           it->dump();
  }
  return std::nullopt;
}

}  // namespace tfbench::harness::impl
