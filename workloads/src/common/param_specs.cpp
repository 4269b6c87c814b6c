#include "common/param_specs.hpp"

#include <algorithm>

namespace tfbench::workloads {

ParamReader::ParamReader(std::string family, std::vector<ParamSpec> specs, const Params& params)
    : family_(std::move(family)), specs_(std::move(specs)), params_(params) {
  for (const auto& entry : params.values()) {
    const std::string& key = entry.first;  // not a structured binding: CUDA 11's nvcc cannot capture one
    const bool known =
        std::any_of(specs_.begin(), specs_.end(), [&](const ParamSpec& s) { return s.name == key; });
    if (!known) throw WorkloadError(family_ + ": unknown parameter '" + key + "'");
  }
}

const ParamSpec& ParamReader::spec(const std::string& name) const {
  for (const auto& s : specs_) {
    if (s.name == name) return s;
  }
  throw WorkloadError(family_ + ": no parameter '" + name + "' is declared");  // a family bug
}

ParamValue ParamReader::value(const ParamSpec& s) const {
  if (params_.has(s.name)) return params_.values().at(s.name);
  if (!s.default_value) throw WorkloadError(family_ + ": missing required parameter '" + s.name + "'");
  return *s.default_value;
}

std::int64_t ParamReader::get_int(const std::string& name) const {
  const ParamSpec& s = spec(name);
  const ParamValue v = value(s);
  const auto* i = std::get_if<std::int64_t>(&v);
  if (!i) throw WorkloadError(family_ + ": parameter '" + name + "' must be an integer, got " + to_string(v));
  if ((s.min && *i < *s.min) || (s.max && *i > *s.max)) {
    throw WorkloadError(family_ + ": parameter '" + name + "' = " + to_string(v) + " is outside [" +
                        (s.min ? to_string(ParamValue{static_cast<std::int64_t>(*s.min)}) : "-inf") + ", " +
                        (s.max ? to_string(ParamValue{static_cast<std::int64_t>(*s.max)}) : "inf") + "]");
  }
  return *i;
}

double ParamReader::get_double(const std::string& name) const {
  const ParamSpec& s = spec(name);
  const ParamValue v = value(s);
  double d = 0.0;
  if (const auto* x = std::get_if<double>(&v)) {
    d = *x;
  } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
    d = static_cast<double>(*i);
  } else {
    throw WorkloadError(family_ + ": parameter '" + name + "' must be a number, got " + to_string(v));
  }
  if ((s.min && d < *s.min) || (s.max && d > *s.max)) {
    throw WorkloadError(family_ + ": parameter '" + name + "' = " + to_string(v) + " is outside [" +
                        (s.min ? to_string(ParamValue{*s.min}) : "-inf") + ", " +
                        (s.max ? to_string(ParamValue{*s.max}) : "inf") + "]");
  }
  return d;
}

bool ParamReader::get_bool(const std::string& name) const {
  const ParamValue v = value(spec(name));
  const auto* b = std::get_if<bool>(&v);
  if (!b) throw WorkloadError(family_ + ": parameter '" + name + "' must be a boolean, got " + to_string(v));
  return *b;
}

std::string ParamReader::get_string(const std::string& name) const {
  const ParamSpec& s = spec(name);
  const ParamValue v = value(s);
  const auto* str = std::get_if<std::string>(&v);
  if (!str) throw WorkloadError(family_ + ": parameter '" + name + "' must be a string, got " + to_string(v));
  if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), *str) == s.choices.end()) {
    std::string allowed;
    for (const auto& c : s.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    throw WorkloadError(family_ + ": parameter '" + name + "' = '" + *str + "' is not one of: " + allowed);
  }
  return *str;
}

}  // namespace tfbench::workloads
