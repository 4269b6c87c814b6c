#include "tfbench/engine/core/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace tfbench {

const char* name(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "bool";
    case DType::I32:
      return "i32";
    case DType::I64:
      return "i64";
    case DType::F32:
      return "f32";
    case DType::F64:
      return "f64";
    case DType::C64:
      return "c64";
    case DType::C128:
      return "c128";
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64, DType::C64, DType::C128})
    if (lower == name(d)) return d;
  return std::nullopt;
}

bool is_floating(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || is_complex(dtype);
}

DType real_dtype(DType dtype) {
  switch (dtype) {
    case DType::C64:
      return DType::F32;
    case DType::C128:
      return DType::F64;
    default:
      return dtype;
  }
}

}  // namespace tfbench
