// docs/ops-tensor.md quotes the example sources verbatim; this runs them and checks the page still
// shows their current text.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

void elementwise_example();
void einsum_example();

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void check_quoted(const char* page, const char* example) {
  const std::string source = read_file(std::string(TFBENCH_SOURCE_DIR) + "/" + example);
  const std::string text = read_file(std::string(TFBENCH_SOURCE_DIR) + "/" + page);
  REQUIRE_FALSE(source.empty());
  INFO(page << " should quote " << example);
  CHECK(text.find("```cpp\n" + source + "```") != std::string::npos);
}

}  // namespace

TEST_CASE("the operation examples run and their assertions hold", "[ops][docs]") {
  REQUIRE_NOTHROW(elementwise_example());
  REQUIRE_NOTHROW(einsum_example());
}

TEST_CASE("docs/ops-tensor.md quotes the compiled examples verbatim", "[ops][docs]") {
  check_quoted("docs/ops-tensor.md", "tests/engine/ops/examples/elementwise_example.cpp");
  check_quoted("docs/ops-tensor.md", "tests/engine/ops/examples/einsum_example.cpp");
}
