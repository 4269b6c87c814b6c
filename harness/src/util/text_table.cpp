#include "util/text_table.hpp"

#include <algorithm>

namespace tfbench::harness::impl {
namespace {

/// Display width of UTF-8 text: code points, not bytes.
std::size_t width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& text, std::size_t to, bool right) {
  const std::size_t w = width(text);
  if (w >= to) return text;
  const std::string fill(to - w, ' ');
  return right ? fill + text : text + fill;
}

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> headers) {
  for (auto& h : headers) {
    const bool right = !h.empty() && h.back() == '>';
    if (right) h.pop_back();
    right_.push_back(right);
    headers_.push_back(h);
  }
}

void TextTable::add(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = width(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) text += "  ";
      text += pad(cells[c], c + 1 == cells.size() && !right_[c] ? 0 : widths[c], right_[c]);
    }
    out << text << '\n';
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
}

void TextTable::print_markdown(std::ostream& out) const {
  out << '|';
  for (const auto& h : headers_) out << ' ' << escape_markdown(h) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < headers_.size(); ++c) out << (right_[c] ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& row : rows_) {
    out << '|';
    for (const auto& cell : row) out << ' ' << escape_markdown(cell) << " |";
    out << '\n';
  }
}

}  // namespace tfbench::harness::impl
