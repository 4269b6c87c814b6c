#include "tfbench/harness/json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace tfbench::harness {
namespace {

const char* type_name(Json::Type type) {
  switch (type) {
    case Json::Type::Null:
      return "null";
    case Json::Type::Bool:
      return "boolean";
    case Json::Type::Int:
      return "integer";
    case Json::Type::Double:
      return "number";
    case Json::Type::String:
      return "string";
    case Json::Type::Array:
      return "array";
    case Json::Type::Object:
      return "object";
  }
  return "unknown";
}

[[noreturn]] void wrong_type(Json::Type have, const char* want) {
  throw JsonError(std::string("JSON: expected ") + want + ", found " + type_name(have));
}

void append_double(std::string& out, double v, bool strict) {
  if (std::isnan(v)) {
    out += strict ? "null" : "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += strict ? "null" : (v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  // The shortest text that reads back as the same double.
  char buf[40];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string text = buf;
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";  // stays a double when read back
  out += text;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Json document() {
    Json value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw JsonError("JSON: " + what + " at offset " + std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  Json parse_value(int depth) {
    if (depth > 200) fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of input");
    const char c = text_[pos_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return Json(parse_string());
    if (consume("true")) return Json(true);
    if (consume("false")) return Json(false);
    if (consume("null")) return Json();
    if (consume("NaN")) return Json(std::numeric_limits<double>::quiet_NaN());
    if (consume("Infinity")) return Json(std::numeric_limits<double>::infinity());
    if (consume("-Infinity")) return Json(-std::numeric_limits<double>::infinity());
    return parse_number();
  }

  Json parse_object(int depth) {
    ++pos_;
    Json out = Json::object();
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return out;
    }
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a quoted member name");
      std::string key = parse_string();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':'");
      ++pos_;
      out.set(std::move(key), parse_value(depth + 1));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return out;
      }
      fail("expected ',' or '}'");
    }
  }

  Json parse_array(int depth) {
    ++pos_;
    Json out = Json::array();
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return out;
    }
    for (;;) {
      out.push_back(parse_value(depth + 1));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return out;
      }
      fail("expected ',' or ']'");
    }
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') {
        code |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        code |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        code |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        fail("bad hex digit in \\u escape");
      }
    }
    return code;
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = parse_hex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const unsigned low = parse_hex4();
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail("bad escape in string");
      }
    }
    fail("unterminated string");
  }

  Json parse_number() {
    const std::size_t start = pos_;
    bool is_double = false;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && is_double)) {
        is_double = true;
        ++pos_;
      } else {
        break;
      }
    }
    if (pos_ == start) fail("unexpected character");
    const std::string token(text_.substr(start, pos_ - start));
    char* end = nullptr;
    if (!is_double) {
      errno = 0;
      const long long v = std::strtoll(token.c_str(), &end, 10);
      if (end && *end == '\0' && errno == 0) return Json(static_cast<std::int64_t>(v));
    }
    const double d = std::strtod(token.c_str(), &end);
    if (!end || *end != '\0') fail("malformed number '" + token + "'");
    return Json(d);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

bool Json::as_bool() const {
  if (type_ != Type::Bool) wrong_type(type_, "boolean");
  return bool_;
}

std::int64_t Json::as_int() const {
  if (type_ == Type::Int) return int_;
  if (type_ == Type::Double && std::isfinite(double_) && std::floor(double_) == double_)
    return static_cast<std::int64_t>(double_);
  wrong_type(type_, "integer");
}

double Json::as_double() const {
  if (type_ == Type::Double) return double_;
  if (type_ == Type::Int) return static_cast<double>(int_);
  if (type_ == Type::Null) return std::numeric_limits<double>::quiet_NaN();
  wrong_type(type_, "number");
}

const std::string& Json::as_string() const {
  if (type_ != Type::String) wrong_type(type_, "string");
  return string_;
}

const Json::Array& Json::as_array() const {
  if (type_ != Type::Array) wrong_type(type_, "array");
  return array_;
}

const Json::Object& Json::as_object() const {
  if (type_ != Type::Object) wrong_type(type_, "object");
  return object_;
}

const Json* Json::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (const auto& [k, v] : object_) {
    if (k == key) return &v;
  }
  return nullptr;
}

const Json& Json::at(std::string_view key) const {
  if (type_ != Type::Object) wrong_type(type_, "object");
  if (const Json* v = find(key)) return *v;
  throw JsonError("JSON: missing member '" + std::string(key) + "'");
}

Json& Json::set(std::string key, Json value) {
  if (type_ == Type::Null) type_ = Type::Object;
  if (type_ != Type::Object) wrong_type(type_, "object");
  for (auto& [k, v] : object_) {
    if (k == key) {
      v = std::move(value);
      return v;
    }
  }
  object_.emplace_back(std::move(key), std::move(value));
  return object_.back().second;
}

Json& Json::push_back(Json value) {
  if (type_ == Type::Null) type_ = Type::Array;
  if (type_ != Type::Array) wrong_type(type_, "array");
  array_.push_back(std::move(value));
  return array_.back();
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += ch;  // UTF-8 passes through
        }
    }
  }
  out += '"';
  return out;
}

void Json::dump_to(std::string& out, bool strict) const {
  switch (type_) {
    case Type::Null:
      out += "null";
      break;
    case Type::Bool:
      out += bool_ ? "true" : "false";
      break;
    case Type::Int:
      out += std::to_string(int_);
      break;
    case Type::Double:
      append_double(out, double_, strict);
      break;
    case Type::String:
      out += json_quote(string_);
      break;
    case Type::Array: {
      out += '[';
      for (std::size_t i = 0; i < array_.size(); ++i) {
        if (i) out += ',';
        array_[i].dump_to(out, strict);
      }
      out += ']';
      break;
    }
    case Type::Object: {
      out += '{';
      for (std::size_t i = 0; i < object_.size(); ++i) {
        if (i) out += ',';
        out += json_quote(object_[i].first);
        out += ':';
        object_[i].second.dump_to(out, strict);
      }
      out += '}';
      break;
    }
  }
}

std::string Json::dump(bool strict) const {
  std::string out;
  dump_to(out, strict);
  return out;
}

Json Json::parse(std::string_view text) {
  return Parser(text).document();
}

}  // namespace tfbench::harness
