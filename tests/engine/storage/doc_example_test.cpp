// docs/storage.md shows examples/storage_example.cpp verbatim; this test runs it and checks the page
// still shows the current source.
#include <catch2/catch.hpp>

#include "doc_quote.hpp"

void storage_example();

TEST_CASE("the storage example runs and its assertions hold", "[storage][docs]") {
  REQUIRE_NOTHROW(storage_example());
}

TEST_CASE("docs/storage.md shows the compiled example verbatim", "[storage][docs]") {
  tfbench::test::check_doc_quotes("docs/storage.md", "examples/storage_example.cpp");
}
