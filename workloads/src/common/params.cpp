#include "tfbench/workloads/family.hpp"

#include <cstdio>

namespace tfbench::workloads {

const char* name(ParamType type) {
  switch (type) {
    case ParamType::Int:
      return "integer";
    case ParamType::Double:
      return "number";
    case ParamType::Bool:
      return "boolean";
    case ParamType::String:
      return "string";
  }
  return "unknown";
}

const char* name(VariantKind kind) {
  switch (kind) {
    case VariantKind::Engine:
      return "engine";
    case VariantKind::Peer:
      return "peer";
    case VariantKind::Control:
      return "control";
  }
  return "unknown";
}

std::string to_string(const ParamValue& value) {
  struct Visitor {
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", v);
      return buf;
    }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, value);
}

const ParamValue& Params::at(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw WorkloadError("missing parameter '" + key + "'");
  return it->second;
}

std::int64_t Params::get_int(const std::string& key) const {
  const auto& v = at(key);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  throw WorkloadError("parameter '" + key + "' is not an integer: " + to_string(v));
}

double Params::get_double(const std::string& key) const {
  const auto& v = at(key);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw WorkloadError("parameter '" + key + "' is not a number: " + to_string(v));
}

bool Params::get_bool(const std::string& key) const {
  const auto& v = at(key);
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  throw WorkloadError("parameter '" + key + "' is not a boolean: " + to_string(v));
}

const std::string& Params::get_string(const std::string& key) const {
  const auto& v = at(key);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  throw WorkloadError("parameter '" + key + "' is not a string: " + to_string(v));
}

std::string Params::canonical() const {
  std::string out;
  for (const auto& [key, value] : values_) {
    if (!out.empty()) out += ',';
    out += key + '=' + to_string(value);
  }
  return out;
}

}  // namespace tfbench::workloads
