// ParamReader: defaults, bounds, choices and unknown names, with errors naming the parameter.

#include <catch2/catch.hpp>

#include "common/param_specs.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;
using P = std::map<std::string, ParamValue>;

TEST_CASE("ParamReader fills defaults and checks bounds and choices", "[workloads]") {
  const std::vector<ParamSpec> specs = {int_param("n", "size", 8, 2, 32),
                                        double_param("x", "ratio", 0.5, 0, 1),
                                        string_param("mode", "mode", "a", {"a", "b"})};
  const Params empty;
  const ParamReader defaults("fam", specs, empty);
  CHECK(defaults.get_int("n") == 8);
  CHECK(defaults.get_double("x") == 0.5);
  CHECK(defaults.get_string("mode") == "a");

  const Params given(P{{"n", std::int64_t{32}}, {"x", std::int64_t{1}}, {"mode", std::string("b")}});
  const ParamReader r("fam", specs, given);
  CHECK(r.get_int("n") == 32);
  CHECK(r.get_double("x") == 1.0);  // an integer converts
  CHECK(r.get_string("mode") == "b");

  const Params high(P{{"n", std::int64_t{33}}});
  CHECK_THROWS_WITH(ParamReader("fam", specs, high).get_int("n"),
                    Catch::Contains("'n' = 33 is outside [2, 32]"));
  const Params wrong(P{{"mode", std::string("c")}});
  CHECK_THROWS_WITH(ParamReader("fam", specs, wrong).get_string("mode"), Catch::Contains("not one of: a, b"));
  const Params typed(P{{"n", std::string("eight")}});
  CHECK_THROWS_WITH(ParamReader("fam", specs, typed).get_int("n"), Catch::Contains("must be an integer"));
  const Params unknown(P{{"m", std::int64_t{1}}});
  CHECK_THROWS_WITH(ParamReader("fam", specs, unknown), Catch::Contains("unknown parameter 'm'"));
}

TEST_CASE("every family declares described parameters with defaults", "[workloads]") {
  for (const Family* family : families()) {
    INFO(family->name());
    CHECK_FALSE(family->description().empty());
    for (const ParamSpec& spec : family->parameters()) {
      INFO(spec.name);
      CHECK_FALSE(spec.description.empty());
      CHECK(spec.default_value.has_value());
    }
  }
}
