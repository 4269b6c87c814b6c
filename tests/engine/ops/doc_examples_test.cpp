// docs/ops-tensor.md quotes the example sources verbatim; this runs them and checks the page still
// shows their current text.

#include <catch2/catch.hpp>

#include "doc_quote.hpp"

void elementwise_example();
void einsum_example();

TEST_CASE("the operation examples run and their assertions hold", "[ops][docs]") {
  REQUIRE_NOTHROW(elementwise_example());
  REQUIRE_NOTHROW(einsum_example());
}

TEST_CASE("docs/ops-tensor.md quotes the compiled examples verbatim", "[ops][docs]") {
  tfbench::test::check_doc_quotes("docs/ops-tensor.md", "tests/engine/ops/examples/elementwise_example.cpp");
  tfbench::test::check_doc_quotes("docs/ops-tensor.md", "tests/engine/ops/examples/einsum_example.cpp");
}
