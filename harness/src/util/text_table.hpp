#pragma once
// Aligned plain-text and Markdown tables for compare and report.

#include <ostream>
#include <string>
#include <vector>

namespace tfbench::harness::impl {

class TextTable {
 public:
  /// A header ending in '>' right-aligns its column (the '>' is not printed).
  explicit TextTable(std::vector<std::string> headers);
  void add(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  void print(std::ostream& out, const std::string& indent = "") const;
  void print_markdown(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tfbench::harness::impl
