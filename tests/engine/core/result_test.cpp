#include "tfbench/engine/core/result.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
enum class Err { Bad, Worse };
}

TEST_CASE("Result holds a value or a typed error", "[core][result]") {
  tfbench::Result<int, Err> ok = 42;
  REQUIRE(ok.has_value());
  REQUIRE(*ok == 42);

  tfbench::Result<int, Err> bad = tfbench::unexpected(Err::Worse);
  REQUIRE_FALSE(bad);
  REQUIRE(bad.error() == Err::Worse);
  REQUIRE(bad.value_or(7) == 7);
  REQUIRE_THROWS_AS(bad.value(), tfbench::BadResultAccess);
}

TEST_CASE("Result keeps a value and an error of the same type apart", "[core][result]") {
  tfbench::Result<std::string, std::string> value = std::string("v");
  tfbench::Result<std::string, std::string> error = tfbench::unexpected(std::string("e"));
  REQUIRE(value.has_value());
  REQUIRE_FALSE(error.has_value());
  REQUIRE(error.error() == "e");
}

TEST_CASE("Result<void> reports success or error", "[core][result]") {
  tfbench::Result<void, Err> ok;
  REQUIRE(ok);
  tfbench::Result<void, Err> bad = tfbench::unexpected(Err::Bad);
  REQUIRE_FALSE(bad);
  REQUIRE_THROWS_AS(bad.value(), tfbench::BadResultAccess);
}
