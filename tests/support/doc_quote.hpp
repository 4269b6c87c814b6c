#pragma once
// Docs quote compiled examples verbatim; these checks keep a page and its example from drifting apart.
// Needs TFBENCH_SOURCE_DIR (the repository root) defined by the including test target.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace tfbench::test {

/// The whole text of a file under the repository root ("" when it cannot be read).
inline std::string read_source_file(const std::string& relative_path) {
  std::ifstream in(std::string(TFBENCH_SOURCE_DIR) + "/" + relative_path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Checks that `page` contains `example`'s current source as one ```cpp block.
inline void check_doc_quotes(const std::string& page, const std::string& example) {
  const std::string source = read_source_file(example);
  const std::string text = read_source_file(page);
  INFO(page << " should quote " << example << " verbatim");
  REQUIRE_FALSE(source.empty());
  REQUIRE_FALSE(text.empty());
  CHECK(text.find("```cpp\n" + source + "```") != std::string::npos);
}

}  // namespace tfbench::test
