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

TEST_CASE("Result dereferences as a const value and moves out of a temporary", "[core][result]") {
  const tfbench::Result<std::string, Err> held = std::string("kept");
  const std::string& seen = *held;  // const access: no copy, no mutation
  REQUIRE(seen == "kept");
  REQUIRE(&seen == &held.value());
  const tfbench::Result<int, Err> bad = tfbench::unexpected(Err::Bad);
  REQUIRE_THROWS_AS(*bad, tfbench::BadResultAccess);
  tfbench::Result<std::string, Err> moved = std::string(64, 'x');  // beyond the small-string buffer
  const std::string taken = *std::move(moved);
  REQUIRE(taken.size() == 64);
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
