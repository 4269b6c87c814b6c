#pragma once
// Short constructors of the ParamSpecs every family declares.

#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tfbench::workloads {

inline ParamSpec int_param(std::string name, std::string description, std::int64_t default_value, double min,
                           double max) {
  ParamSpec p{
      std::move(name), ParamType::Int, std::move(description), ParamValue{default_value}, {}, min, max};
  return p;
}

inline ParamSpec double_param(std::string name, std::string description, double default_value, double min,
                              double max) {
  ParamSpec p{
      std::move(name), ParamType::Double, std::move(description), ParamValue{default_value}, {}, min, max};
  return p;
}

inline ParamSpec string_param(std::string name, std::string description, std::string default_value,
                              std::vector<std::string> choices) {
  ParamSpec p{std::move(name),
              ParamType::String,
              std::move(description),
              ParamValue{std::move(default_value)},
              std::move(choices),
              std::nullopt,
              std::nullopt};
  return p;
}

/// The element type of a case: "float64" (default) or "float32".
inline ParamSpec dtype_param() {
  return string_param("dtype", "element type", "float64", {"float64", "float32"});
}

/// Reads a case's parameters against the family's specs: defaults filled in, bounds and choices
/// checked, unknown names rejected. Families read through it in variants() and instantiate(), so
/// a config that bypassed `tfbench validate` still gets a clear error naming the parameter.
class ParamReader {
 public:
  ParamReader(std::string family, std::vector<ParamSpec> specs, const Params& params);
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  std::string get_string(const std::string& name) const;

 private:
  const ParamSpec& spec(const std::string& name) const;
  ParamValue value(const ParamSpec& spec) const;
  std::string family_;
  std::vector<ParamSpec> specs_;
  const Params& params_;
};

}  // namespace tfbench::workloads
