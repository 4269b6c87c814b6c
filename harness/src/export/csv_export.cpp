// `tfbench export --format csv`: the results tables of every run as one CSV table that
// pandas.read_csv, R and spreadsheets load as it is (RFC 4180 quoting, UTF-8, NaN an empty cell).

#include "export/values.hpp"
#include "results/schema.hpp"
#include "tfbench/harness/export.hpp"

#include <cmath>
#include <map>
#include <vector>

namespace tfbench::harness {
namespace {

using nlohmann::ordered_json;

std::string quoted(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos &&
      (cell.empty() || (cell.front() != ' ' && cell.back() != ' ')))
    return cell;
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number_cell(double value) {
  return std::isnan(value) ? std::string() : impl::number_text(value);
}

std::string json_cell(const ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  if (value.is_number_float()) return number_cell(value.get<double>());
  return value.dump();  // integers, true/false, arrays and objects as JSON text
}

/// "median_s [s]"; no brackets for text and plain numbers.
std::string header(const std::string& name, const std::string& units) {
  return units.empty() || units == "1" ? name : name + " [" + units + "]";
}

/// The keys of one JSON column over every row, in order of first appearance.
struct ExpandedColumn {
  std::vector<std::string> keys;
  std::map<std::string, std::size_t> index;
  void add(const ordered_json& object) {
    for (const auto& item : object.items()) {
      if (index.emplace(item.key(), keys.size()).second) keys.push_back(item.key());
    }
  }
};

}  // namespace

void export_csv(const ResultsFile& file, std::ostream& out) {
  const auto& columns = impl::result_columns();
  // Parse params and metrics once; collect their keys for the header.
  std::vector<std::vector<std::pair<ordered_json, ordered_json>>> parsed(file.runs.size());
  ExpandedColumn params, metrics;
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const std::string where = impl::row_place(run, i);
      parsed[r].emplace_back(impl::parse_object(run.results[i].params, where + " params"),
                             impl::parse_object(run.results[i].metrics, where + " metrics"));
      params.add(parsed[r].back().first);
      metrics.add(parsed[r].back().second);
    }
  }

  std::vector<std::string> cells = {"run_id"};
  auto expand_header = [&](const ExpandedColumn& column, const char* prefix) {
    for (const auto& key : column.keys) cells.push_back(std::string(prefix) + key);
  };
  for (const auto& c : columns) {
    if (c.text == &ResultRow::params)
      expand_header(params, "param.");
    else if (c.text == &ResultRow::metrics)
      expand_header(metrics, "metric.");
    else
      cells.push_back(header(c.name, c.units));
  }
  auto print = [&out](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << quoted(row[i]);
    out << "\n";
  };
  print(cells);

  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const ResultRow& row = run.results[i];
      cells = {run.info.run_id};
      auto expand = [&cells](const ExpandedColumn& column, const ordered_json& object) {
        for (const auto& key : column.keys)
          cells.push_back(object.contains(key) ? json_cell(object[key]) : "");
      };
      for (const auto& c : columns) {
        if (c.text == &ResultRow::params)
          expand(params, parsed[r][i].first);
        else if (c.text == &ResultRow::metrics)
          expand(metrics, parsed[r][i].second);
        else if (c.is_text())
          cells.push_back(c.text_of(row));
        else if (c.integer)
          cells.push_back(std::to_string(row.*c.integer));
        else
          cells.push_back(number_cell(row.*c.number));
      }
      print(cells);
    }
  }
}

}  // namespace tfbench::harness
