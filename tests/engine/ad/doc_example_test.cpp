// docs/ad.md quotes examples/ad_example.cpp verbatim; this runs it and checks the quote.

#include <catch2/catch.hpp>

#include "doc_quote.hpp"

void ad_example();

TEST_CASE("the AD example runs and its assertions hold", "[ad][docs]") {
  REQUIRE_NOTHROW(ad_example());
}

TEST_CASE("docs/ad.md quotes the compiled example verbatim", "[ad][docs]") {
  tfbench::test::check_doc_quotes("docs/ad.md", "tests/engine/ad/examples/ad_example.cpp");
}
