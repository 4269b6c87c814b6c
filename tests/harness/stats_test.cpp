// Sample statistics and the Mann-Whitney U test, against values from SciPy 1.10
// (scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="exact" / "asymptotic")).

#include "tfbench/harness/stats.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace tfbench::harness;
using Catch::Detail::Approx;

TEST_CASE("summary statistics of samples", "[stats]") {
  const SampleStats s = summarize({3.0, 1.0, 2.0, 10.0});
  CHECK(s.count == 4);
  CHECK(s.median == 2.5);
  CHECK(s.min == 1.0);
  CHECK(s.max == 10.0);
  CHECK(s.mean == 4.0);
  CHECK(s.stddev == Approx(std::sqrt(((1.0 + 4.0 + 9.0 + 36.0)) / 3.0)));
  CHECK(s.cv == Approx(s.stddev / 4.0));
  const SampleStats one = summarize({5.0});
  CHECK(one.median == 5.0);
  CHECK(std::isnan(one.stddev));
  CHECK(std::isnan(summarize({}).median));
}

TEST_CASE("Mann-Whitney U, exact distribution without ties", "[stats]") {
  auto r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  CHECK(r.exact);
  CHECK(r.u == 0.0);
  CHECK(r.p == Approx(0.1).epsilon(1e-12));

  r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  CHECK(r.exact);
  CHECK(r.p == Approx(0.007936507936507936).epsilon(1e-12));

  r = mann_whitney_u({1.1, 2.2, 3.3, 4.4}, {2.5, 3.5, 4.5, 5.5});
  CHECK(r.u == 3.0);
  CHECK(r.p == Approx(0.2).epsilon(1e-12));

  r = mann_whitney_u({0.81, 0.95, 1.02, 0.88, 0.91, 0.99}, {1.05, 1.12, 0.97, 1.21, 1.08, 1.15});
  CHECK(r.u == 2.0);
  CHECK(r.p == Approx(0.008658008658008658).epsilon(1e-12));

  // Symmetric: swapping the samples gives U' = mn - U and the same two-sided p.
  const auto swapped =
      mann_whitney_u({1.05, 1.12, 0.97, 1.21, 1.08, 1.15}, {0.81, 0.95, 1.02, 0.88, 0.91, 0.99});
  CHECK(swapped.u == 34.0);
  CHECK(swapped.p == Approx(r.p).epsilon(1e-12));
}

TEST_CASE("Mann-Whitney U, normal approximation with tie correction", "[stats]") {
  auto r = mann_whitney_u({1, 2, 2, 3, 4}, {2, 3, 3, 5, 6, 7});
  CHECK_FALSE(r.exact);
  CHECK(r.ties);
  CHECK(r.u == 6.0);
  CHECK(r.p == Approx(0.11390314458853068).epsilon(1e-10));

  r = mann_whitney_u({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1});
  CHECK(r.p == 1.0);

  // Large samples without ties (65 values > kMannWhitneyExactMax) use the approximation too.
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(i);
  for (int i = 0; i < 35; ++i) y.push_back(i + 10.5);
  r = mann_whitney_u(x, y);
  CHECK_FALSE(r.exact);
  CHECK(r.u == 190.0);
  CHECK(r.p == Approx(1.0740756330942105e-05).epsilon(1e-8));
}

TEST_CASE("the smallest p an exact test can reach", "[stats]") {
  CHECK(mann_whitney_min_p(3, 3) == Approx(0.1));         // 2 / C(6, 3)
  CHECK(mann_whitney_min_p(4, 4) == Approx(2.0 / 70.0));  // first equal size below 0.05
  CHECK(mann_whitney_min_p(5, 3) == Approx(2.0 / 56.0));
  CHECK(mann_whitney_min_p(0, 3) == 1.0);
}

TEST_CASE("two-sided exact sign test", "[stats]") {
  // scipy.stats.binomtest(k, n, 0.5).pvalue
  CHECK(sign_test_p(6, 0) == Approx(0.03125));
  CHECK(sign_test_p(0, 6) == Approx(0.03125));
  CHECK(sign_test_p(5, 1) == Approx(0.21875));
  CHECK(sign_test_p(8, 1) == Approx(0.0390625));
  CHECK(sign_test_p(3, 3) == 1.0);
  CHECK(sign_test_p(0, 0) == 1.0);
  CHECK(sign_test_p(17, 3) == Approx(0.002576828).epsilon(1e-6));
  CHECK(sign_test_min_p(5) == Approx(0.0625));  // 5 rounds cannot reach 0.05
  CHECK(sign_test_min_p(6) == Approx(0.03125));
  CHECK(sign_test_min_p(0) == 1.0);
}

TEST_CASE("median_interval: order statistics as target_report.py takes them", "[stats]") {
  // Ten values: k = 2 (coverage 0.979; k = 3 would cover 0.891 < 0.90).
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  const MedianInterval m = median_interval(ten);
  CHECK(m.median == Catch::Detail::Approx(5.5));
  CHECK(m.lo == 2.0);
  CHECK(m.hi == 9.0);
  // Five: k = 2 would cover 0.625, so k = 1, the whole range (0.9375); NaN is left out.
  const MedianInterval five = median_interval({3.0, std::nan(""), 1.0, 5.0, 2.0, 4.0});
  CHECK(five.median == 3.0);
  CHECK(five.lo == 1.0);
  CHECK(five.hi == 5.0);
  CHECK(std::isnan(median_interval({}).median));
  const MedianInterval one = median_interval({2.0});
  CHECK(one.median == 2.0);
  CHECK(std::isnan(one.lo));
}
