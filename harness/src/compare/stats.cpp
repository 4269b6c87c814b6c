#include "tfbench/harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tfbench::harness {

SampleStats summarize(const std::vector<double>& samples) {
  SampleStats s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.count = samples.size();
  if (samples.empty()) {
    s.median = s.min = s.max = s.mean = s.stddev = s.cv = nan;
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n < 2) {
    s.stddev = s.cv = nan;
    return s;
  }
  double sq = 0.0;
  for (double v : sorted) sq += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(sq / static_cast<double>(n - 1));
  s.cv = s.mean != 0.0 ? s.stddev / s.mean : nan;
  return s;
}

MedianInterval median_interval(std::vector<double> values, double confidence) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
               values.end());
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n == 0) return {nan, nan, nan};
  const double median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  if (n < 2) return {median, nan, nan};
  // below[k] = P(Binomial(n, 1/2) < k), summed term by term.
  const auto below = [n](std::size_t k) {
    double term = std::pow(0.5, static_cast<double>(n)), sum = 0.0;
    for (std::size_t i = 0; i < k; ++i) {
      sum += term;
      term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
    return sum;
  };
  std::size_t k = 1;
  while (k + 1 <= (n + 1) / 2 && 1.0 - 2.0 * below(k + 1) >= confidence) ++k;
  return {median, values[k - 1], values[n - k]};
}

double mann_whitney_min_p(std::size_t m, std::size_t n) {
  if (m == 0 || n == 0) return 1.0;
  // C(m+n, m) as a running product in doubles: exact enough for a threshold comparison.
  double combinations = 1.0;
  for (std::size_t i = 1; i <= std::min(m, n); ++i) {
    combinations = combinations * static_cast<double>(m + n - std::min(m, n) + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2.0 / combinations);
}

double sign_test_p(std::size_t above, std::size_t below) {
  const std::size_t n = above + below;
  if (n == 0) return 1.0;
  // P(X <= k) for X ~ Binomial(n, 1/2), summing C(n, i) / 2^n term by term in doubles.
  const std::size_t k = std::min(above, below);
  double term = std::pow(0.5, static_cast<double>(n));  // C(n, 0) / 2^n
  double tail = term;
  for (std::size_t i = 1; i <= k; ++i) {
    term = term * static_cast<double>(n - i + 1) / static_cast<double>(i);
    tail += term;
  }
  return std::min(1.0, 2.0 * tail);
}

double sign_test_min_p(std::size_t n) {
  return n == 0 ? 1.0 : sign_test_p(n, 0);
}

namespace {

/// Number of orderings of m x's and n y's giving each U (pairs with x > y), as frequencies that
/// sum to one: the recursion f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u), weighted by m/(m+n) and
/// n/(m+n) so that values stay probabilities.
std::vector<double> exact_u_distribution(std::size_t m, std::size_t n) {
  // table[i][j] is the distribution for (i, j); rows are built up to (m, n).
  std::vector<std::vector<std::vector<double>>> table(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      auto& dist = table[i][j];
      dist.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        dist[0] = 1.0;
        continue;
      }
      // The largest of all i + j values is an x with probability i/(i+j): it beats all j y's.
      const double px = static_cast<double>(i) / static_cast<double>(i + j);
      const auto& with_x_last = table[i - 1][j];
      const auto& with_y_last = table[i][j - 1];
      for (std::size_t u = 0; u < with_x_last.size(); ++u) dist[u + j] += px * with_x_last[u];
      for (std::size_t u = 0; u < with_y_last.size(); ++u) dist[u] += (1.0 - px) * with_y_last[u];
    }
  }
  return table[m][n];
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitneyResult r;
  const std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return r;
  const std::size_t total = m + n;

  // Average ranks of the pooled samples.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(total);
  for (double v : x) pooled.emplace_back(v, 0);
  for (double v : y) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0.0;
  double tie_term = 0.0;  // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j + 1 < total && pooled[j + 1].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i + 1);
    const double average_rank = 0.5 * static_cast<double>(i + j) + 1.0;
    for (std::size_t k = i; k <= j; ++k) {
      if (pooled[k].second == 0) rank_sum_x += average_rank;
    }
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    i = j + 1;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  r.u = rank_sum_x - md * (md + 1.0) / 2.0;

  if (!r.ties && total <= kMannWhitneyExactMax) {
    r.exact = true;
    const std::vector<double> dist = exact_u_distribution(m, n);
    const auto u = static_cast<std::size_t>(std::llround(r.u));
    double lower = 0.0, upper = 0.0;
    for (std::size_t k = 0; k < dist.size(); ++k) {
      if (k <= u) lower += dist[k];
      if (k >= u) upper += dist[k];
    }
    r.p = std::min(1.0, 2.0 * std::min(lower, upper));
    return r;
  }

  const double mean_u = md * nd / 2.0;
  const double nt = static_cast<double>(total);
  const double variance = md * nd / 12.0 * ((nt + 1.0) - tie_term / (nt * (nt - 1.0)));
  if (variance <= 0.0) {
    r.p = 1.0;  // every value equal: no evidence of a difference
    return r;
  }
  const double z = std::max(0.0, std::fabs(r.u - mean_u) - 0.5) / std::sqrt(variance);
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace tfbench::harness
