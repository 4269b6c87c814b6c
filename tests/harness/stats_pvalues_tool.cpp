// Prints compare's p-values for sample sets read as JSON on stdin, for tests/scripts/test_stats_scipy.py
// to check against SciPy, and the roofline fraction's median interval, for it to check against
// scripts/tfbench_results' rule. Input:
//   {"mann_whitney": [{"x": [..], "y": [..]}, ..], "sign": [{"above": a, "below": b}, ..],
//    "median_interval": [[..], ..]}  (the last optional)
// Output, one entry per input entry in the same order:
//   {"mann_whitney": [{"u": .., "p": .., "exact": .., "ties": ..}, ..], "sign": [{"p": .., "min_p": ..}, ..],
//    "median_interval": [{"median": .., "lo": .., "hi": ..}, ..]}  (NaN as null)

#include "tfbench/harness/json.hpp"
#include "tfbench/harness/stats.hpp"

#include <iostream>
#include <vector>

using namespace tfbench::harness;

int main() {
  try {
    const Json in = Json::parse(std::cin);
    Json out = {{"mann_whitney", Json::array()}, {"sign", Json::array()}};
    for (const auto& set : in.at("mann_whitney")) {
      const auto x = set.at("x").get<std::vector<double>>();
      const auto y = set.at("y").get<std::vector<double>>();
      const MannWhitneyResult r = mann_whitney_u(x, y);
      out["mann_whitney"].push_back({{"u", r.u}, {"p", r.p}, {"exact", r.exact}, {"ties", r.ties}});
    }
    for (const auto& pair : in.at("sign")) {
      const auto above = pair.at("above").get<std::size_t>();
      const auto below = pair.at("below").get<std::size_t>();
      out["sign"].push_back({{"p", sign_test_p(above, below)}, {"min_p", sign_test_min_p(above + below)}});
    }
    out["median_interval"] = Json::array();
    if (in.contains("median_interval")) {
      for (const auto& values : in.at("median_interval")) {
        const MedianInterval m = median_interval(values.get<std::vector<double>>());
        out["median_interval"].push_back({{"median", m.median}, {"lo", m.lo}, {"hi", m.hi}});
      }
    }
    std::cout << dump_json(out) << '\n';
  } catch (const Json::exception& e) {
    std::cerr << "stats_pvalues_tool: expected {\"mann_whitney\": [{\"x\": [..], \"y\": [..]}], \"sign\": "
                 "[{\"above\": a, \"below\": b}]}: "
              << e.what() << '\n';
    return 2;
  }
  return 0;
}
