// docs/ad.md quotes examples/ad_example.cpp verbatim; this runs it and checks the quote.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

void ad_example();

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("the AD example runs and its assertions hold", "[ad][docs]") {
  REQUIRE_NOTHROW(ad_example());
}

TEST_CASE("docs/ad.md quotes the compiled example verbatim", "[ad][docs]") {
  const std::string source = read_file(TFBENCH_SOURCE_DIR "/tests/engine/ad/examples/ad_example.cpp");
  const std::string page = read_file(TFBENCH_SOURCE_DIR "/docs/ad.md");
  REQUIRE_FALSE(source.empty());
  CHECK(page.find("```cpp\n" + source + "```") != std::string::npos);
}
