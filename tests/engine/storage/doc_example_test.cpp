// docs/storage.md shows examples/storage_example.cpp verbatim; this test runs it and checks the page
// still shows the current source.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

void storage_example();

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("the storage example runs and its assertions hold", "[storage][docs]") {
  REQUIRE_NOTHROW(storage_example());
}

TEST_CASE("docs/storage.md shows the compiled example verbatim", "[storage][docs]") {
  const std::string source = read_file(TFBENCH_SOURCE_DIR "/examples/storage_example.cpp");
  const std::string page = read_file(TFBENCH_SOURCE_DIR "/docs/storage.md");
  REQUIRE_FALSE(source.empty());
  CHECK(page.find("```cpp\n" + source + "```") != std::string::npos);
}
