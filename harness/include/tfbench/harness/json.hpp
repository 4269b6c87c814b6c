#pragma once
// A small JSON value: the worker<->parent protocol, the `params`/`metrics` columns of the result
// file and `tfbench compare --format json`. Integers and doubles stay distinct (a double is always
// written with a '.', an exponent or as NaN/Infinity), so typed parameters survive a round trip.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tfbench::harness {

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Json {
 public:
  enum class Type { Null, Bool, Int, Double, String, Array, Object };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order

  Json() = default;
  Json(std::nullptr_t) {}                                // NOLINT
  Json(bool value) : type_(Type::Bool), bool_(value) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  Json(T value) : type_(Type::Int), int_(static_cast<std::int64_t>(value)) {}  // NOLINT
  Json(double value) : type_(Type::Double), double_(value) {}                  // NOLINT
  Json(const char* value) : type_(Type::String), string_(value) {}             // NOLINT
  Json(std::string value) : type_(Type::String), string_(std::move(value)) {}  // NOLINT
  Json(Array value) : type_(Type::Array), array_(std::move(value)) {}          // NOLINT
  Json(Object value) : type_(Type::Object), object_(std::move(value)) {}       // NOLINT

  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_number() const { return type_ == Type::Int || type_ == Type::Double; }

  bool as_bool() const;
  std::int64_t as_int() const;  // a Double with an integral value converts
  double as_double() const;     // an Int converts; Null reads as NaN
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  /// The member called `key` of an object, or nullptr.
  const Json* find(std::string_view key) const;
  /// The member called `key`; throws JsonError naming the key when it is missing.
  const Json& at(std::string_view key) const;
  /// Sets (or adds) a member of an object; a Null value becomes an object first.
  Json& set(std::string key, Json value);
  /// Appends to an array; a Null value becomes an array first.
  Json& push_back(Json value);

  /// Compact text. NaN and infinities are written as NaN/Infinity (Python's json reads them) unless
  /// `strict` is set, which writes null instead.
  std::string dump(bool strict = false) const;
  /// Parses one document (NaN, Infinity and -Infinity accepted); JsonError says where it failed.
  static Json parse(std::string_view text);

 private:
  void dump_to(std::string& out, bool strict) const;

  Type type_ = Type::Null;
  bool bool_ = false;
  std::int64_t int_ = 0;
  double double_ = 0.0;
  std::string string_;
  Array array_;
  Object object_;
};

/// `text` as a quoted JSON string.
std::string json_quote(std::string_view text);

}  // namespace tfbench::harness
