#include "config/yaml_scalar.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

namespace tfbench::harness::impl {

YamlScalar classify_scalar(const YAML::Node& node) {
  YamlScalar out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsScalar()) {
    out.kind = YamlScalar::Kind::String;
    return out;
  }
  out.text = node.Scalar();
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") {
    out.kind = YamlScalar::Kind::String;
    return out;
  }
  const std::string& t = out.text;
  if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") return out;
  if (t == "true" || t == "True" || t == "TRUE" || t == "false" || t == "False" || t == "FALSE") {
    out.kind = YamlScalar::Kind::Bool;
    out.boolean = t[0] == 't' || t[0] == 'T';
    return out;
  }
  static const std::regex integer(R"([-+]?[0-9]+)");
  static const std::regex hex(R"(0x[0-9a-fA-F]+)");
  static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(t, integer) || std::regex_match(t, hex)) {
    errno = 0;
    const long long v = std::strtoll(t.c_str(), nullptr, 0 == t.rfind("0x", 0) ? 16 : 10);
    if (errno == 0) {
      out.kind = YamlScalar::Kind::Int;
      out.integer = v;
      out.number = static_cast<double>(v);
      return out;
    }
  }
  if (std::regex_match(t, floating)) {
    out.kind = YamlScalar::Kind::Double;
    out.number = std::strtod(t.c_str(), nullptr);
    return out;
  }
  if (t == ".inf" || t == ".Inf" || t == "+.inf" || t == "-.inf" || t == "-.Inf") {
    out.kind = YamlScalar::Kind::Double;
    out.number =
        t[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return out;
  }
  if (t == ".nan" || t == ".NaN" || t == ".NAN") {
    out.kind = YamlScalar::Kind::Double;
    out.number = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  out.kind = YamlScalar::Kind::String;
  return out;
}

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "'" + node.Scalar() + "'";
}

}  // namespace tfbench::harness::impl
