// tune_direct_contraction: the item size up to which a contraction step's direct strided kernel beats
// packing + GEMM on this machine. Each point of a ladder of sizes runs two f64 contractions of about
// n^3 multiply-adds, one whose operands a GEMM borrows as they are (ij,jk->ik) and one it must pack
// first (ijk,kjl->il: the contracted labels in different orders), both routes forced by the batch
// policy's threshold, checked against a host loop, then timed in interleaved rounds as prepared
// replays (the route's execution, not its planning).

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/engine_backend.hpp"
#include "common/random.hpp"
#include "tfbench/engine/ops/einsum.hpp"
#include "tfbench/engine/ops/prepared.hpp"
#include "tfbench/workloads/blas_threads.hpp"
#include "tfbench/workloads/tuning.hpp"
#include "tuning/quiet_host.hpp"

namespace tfbench::workloads {
namespace {

using HostTensor = Tensor<double, DynRank, Host>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A threshold no item reaches (the policy wants a finite value): every step runs the direct kernel.
constexpr double kAlwaysDirect = 1e300;

HostTensor random_host(std::initializer_list<Index> shape, std::uint64_t seed) {
  HostTensor t = HostTensor::zeros(Extents<DynRank>(shape));
  fill_random(t.data(), static_cast<std::size_t>(t.numel()), seed);
  return t;
}

/// One contraction of the point: its operands, the host loop's result, and a replay per route.
struct PointCase {
  std::string spec;
  HostTensor a, b, out;
  std::vector<double> reference;
};

/// ij,jk->ik with every extent n, and ijk,kjl->il with i = l = n and j k about n (n^3 multiply-adds
/// each, within rounding of j k).
std::vector<PointCase> point_cases(int n, std::uint64_t seed) {
  std::vector<PointCase> cases;
  {
    PointCase c{"ij,jk->ik",
                random_host({n, n}, derive_seed(seed, 1)),
                random_host({n, n}, derive_seed(seed, 2)),
                HostTensor::zeros(Extents<DynRank>({n, n})),
                {}};
    c.reference.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (Index k = 0; k < n; ++k)
      for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < n; ++i) c.reference[i + k * n] += c.a.data()[i + j * n] * c.b.data()[j + k * n];
    cases.push_back(std::move(c));
  }
  {
    const Index j = std::max<Index>(1, static_cast<Index>(std::lround(std::sqrt(double(n))))),
                k = std::max<Index>(1, (n + j - 1) / j);
    PointCase c{"ijk,kjl->il",
                random_host({n, j, k}, derive_seed(seed, 3)),
                random_host({k, j, n}, derive_seed(seed, 4)),
                HostTensor::zeros(Extents<DynRank>({n, n})),
                {}};
    c.reference.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (Index l = 0; l < n; ++l)
      for (Index kk = 0; kk < k; ++kk)
        for (Index jj = 0; jj < j; ++jj)
          for (Index i = 0; i < n; ++i)
            c.reference[i + l * n] +=
                c.a.data()[i + jj * n + kk * n * j] * c.b.data()[kk + jj * k + l * k * j];
    cases.push_back(std::move(c));
  }
  return cases;
}

double muladds_of(const PointCase& c) {
  double m = 1;
  for (Index e : c.a.shape()) m *= static_cast<double>(e);
  return m * static_cast<double>(c.b.shape()[c.b.shape().size() - 1]);
}

/// The threshold that, applied to the measured points, costs least: the sum over points of the
/// chosen route's time over the faster route's (each point counts alike, whatever its size).
double best_threshold(const std::vector<ContractionCrossoverPoint>& points) {
  std::vector<double> thresholds{0.0};
  for (const auto& p : points) thresholds.push_back(p.muladds);
  double best = 0, best_cost = std::numeric_limits<double>::infinity();
  for (double t : thresholds) {
    double cost = 0;
    for (const auto& p : points) {
      if (!(p.direct_s > 0) || !(p.gemm_s > 0)) continue;
      cost += (p.muladds <= t ? p.direct_s : p.gemm_s) / std::min(p.direct_s, p.gemm_s);
    }
    if (cost < best_cost - 1e-9) {
      best_cost = cost;
      best = t;
    }
  }
  return best;
}

std::string describe(const ContractionCrossover& r) {
  std::ostringstream s;
  s.precision(3);
  s << "contraction direct kernel vs pack + GEMM, " << r.threads << " thread(s): direct up to "
    << r.direct_max_muladds << " multiply-adds per item (";
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const auto& p = r.points[i];
    s << (i ? ", " : "") << "n " << p.n << " " << p.direct_s * 1e6 << "/" << p.gemm_s * 1e6 << " us";
  }
  s << ")";
  if (r.busy_host) s << " [busy host]";
  return s.str();
}

}  // namespace

ContractionCrossover tune_direct_contraction(const TuneOptions& options,
                                             const std::function<void(const std::string&)>& progress) {
  const RunContext ctx{options.space, options.threads, options.seed};
  const int blas_before = blas_threads();
  set_blas_threads(options.threads);
  ContractionCrossover result;
  result.threads = options.threads;
  auto backend = make_backend(ctx);
  const double tolerance = 1e-12;
  auto entered = backend.with_session([&](Session& session) {
    BatchPolicy direct = session.backend_batch_policy(), gemm = direct;
    direct.thresholds.direct_contraction_muladds = kAlwaysDirect;
    gemm.thresholds.direct_contraction_muladds = 0.0;
    std::vector<std::vector<PointCase>> cases;
    for (int n : options.contraction_sizes) {
      cases.push_back(point_cases(n, derive_seed(options.seed, 9000 + static_cast<std::uint64_t>(n))));
      ContractionCrossoverPoint p;
      p.n = n;
      p.muladds = muladds_of(cases.back().front());
      result.points.push_back(p);
    }
    // Correct before fast: both routes of every case against the host loop.
    auto run_all = [&](const BatchPolicy& policy, std::vector<PointCase>& point) {
      with_batch_policy(session, policy, [&](Session& s) {
        for (PointCase& c : point) {
          auto out = c.out.view_mut();
          ops::einsum_into(s, out, c.spec, c.a.view(), c.b.view());
        }
      });
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
      for (const BatchPolicy* policy : {&direct, &gemm}) {
        run_all(*policy, cases[i]);
        for (const PointCase& c : cases[i]) {
          const double e = max_relative_error(c.out.data(), c.reference.data(), c.reference.size());
          result.points[i].max_rel_error = std::max(result.points[i].max_rel_error, e);
        }
      }
      if (!(result.points[i].max_rel_error <= tolerance))
        throw WorkloadError("tune: contraction n = " + std::to_string(result.points[i].n) +
                            " failed its check (relative error " +
                            std::to_string(result.points[i].max_rel_error) + ")");
    }
    // Prepared replays per route, timed in interleaved rounds; the best round decides (choose_fastest).
    const QuietMeasurement q = measure_quietly(options, [&] {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        std::vector<double> best{kNaN, kNaN};
        for (int round = 0; round < options.rounds; ++round) {
          for (int k = 0; k < 2; ++k) {
            const int route = (k + round) % 2;
            const BatchPolicy& policy = route == 0 ? direct : gemm;
            const double t = with_batch_policy(session, policy, [&](Session& s) {
              std::vector<ops::PreparedEinsum> prepared;
              for (PointCase& c : cases[i])
                prepared.push_back(ops::prepare_einsum(s, c.spec, c.a.view(), c.b.view()));
              return steady_seconds_per_call(
                  [&] {
                    for (std::size_t c = 0; c < cases[i].size(); ++c) {
                      auto out = cases[i][c].out.view_mut();
                      prepared[c].run_into(s, out, cases[i][c].a.view(), cases[i][c].b.view());
                    }
                  },
                  options.min_time_s);
            });
            if (!(best[route] <= t)) best[route] = t;
          }
        }
        result.points[i].direct_s = best[0];
        result.points[i].gemm_s = best[1];
      }
    });
    result.host_other_cpu = q.host_other_cpu;
    result.host_steal = q.host_steal;
    result.busy_host = q.busy_host;
  });
  set_blas_threads(blas_before);
  if (!entered) throw WorkloadError("tune: session entry failed: " + entered.error().message);
  result.direct_max_muladds = best_threshold(result.points);
  if (progress) progress(describe(result));
  return result;
}

}  // namespace tfbench::workloads
