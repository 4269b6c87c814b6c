// tune_batched: every provider/strategy that can run a class, checked against a reference, then timed
// in interleaved rounds on the same aligned, first-touched operands the packed_small and
// batched_solve families use.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/engine_backend.hpp"
#include "common/operand_tensor.hpp"
#include "common/random.hpp"
#include "common/size_ladder.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/batched_solve.hpp"
#include "tfbench/workloads/blas_threads.hpp"
#include "tfbench/workloads/tuning.hpp"
#include "tuning/quiet_host.hpp"

namespace tfbench::workloads {
namespace {

template <class T>
using HostTensor = Tensor<T, DynRank, Host>;
using ops::BatchedFamily;
using ops::ItemProvider;
using ops::MemoryLevel;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Operand elements of one item: A, B and C of an n x n GEMM; A, B and X (nrhs = 1) of a solve.
double item_elements(BatchedFamily family, int n) {
  return family == BatchedFamily::Gemm ? 3.0 * n * n : double(n) * n + 2.0 * n;
}

}  // namespace

std::vector<double> target_bytes(MemoryLevel level, const ops::CacheSizes& c, double dram_bytes,
                                 int max_sizes, bool llc_top_octave) {
  double lo = 0, hi = 0;
  switch (level) {
    case MemoryLevel::L1:
      return {0.5 * c.l1_bytes};
    case MemoryLevel::L2:
      lo = c.l1_bytes, hi = c.l2_bytes;
      break;
    case MemoryLevel::LLC:
      lo = c.l2_bytes, hi = c.llc_bytes;
      break;
    case MemoryLevel::DRAM:
      return {std::max(dram_bytes, 2.0 * c.llc_bytes)};
  }
  std::vector<double> sizes = log_size_ladder(lo, hi, max_sizes);
  if (sizes.empty()) sizes.push_back(hi);
  // The L2's top octave: the ladder's last size sits at the middle of its part, and the answer
  // changes again where the operands begin to spill (16 x 16 items at one thread on the Xeon: one
  // BLAS call per item fastest at 0.78 MiB, libxsmm's plain kernel 1.35x BLAS at 1.41 MiB). The
  // LLC's top octave only in a full tune (below): on the Xeon (74 MiB of operands there) it tripled
  // the bounded first-use calibration.
  // Added where the ladder's last size is not within 1.5x of it, and always where the L2 spans 8x
  // or more and the ladder stops at or below its top octave (a 32 KiB L1 and 512 KiB L2, the Zen 2
  // VM: the ladder's last part ends at 256 KiB, 1.41x below the edge).
  const double edge = hi / std::sqrt(2.0);
  const bool wide_below_top = hi >= 8 * lo && sizes.back() <= 0.5 * hi;
  if (level == MemoryLevel::L2 && max_sizes > 1 && (edge > 1.5 * sizes.back() || wide_below_top))
    sizes.push_back(edge);
  // The LLC's bottom octave, where the operands have just left the L2: the ladder starts at the middle
  // of its first part (5.4 MiB at one thread on the Xeon), and the answer can differ below it (32 x 32
  // items: libxsmm's plain kernel fastest at 5.4 MiB, its streaming stores 15% faster at 2.8 MiB).
  // Cheap: the level's smallest batch.
  const double floor = lo * std::sqrt(2.0);
  if (level == MemoryLevel::LLC && max_sizes > 1 && 1.5 * floor < sizes.front())
    sizes.insert(sizes.begin(), floor);
  // The LLC's top octave: on the Zen 2 VM (16 MiB LLC, 2026-12-06, standalone, one thread) libxsmm's
  // streaming stores of C ran 0.97x its plain stores for 32 x 32 items at 6.7 MiB (the ladder's last
  // size) and 1.08-1.16x at 12 MiB (the 512-item batch); 16 x 16 items 0.98x at 3 MiB and 1.24x at
  // 12 MiB. Without a class there, 12 MiB took the 6.7 MiB class's choice.
  const double top = hi / std::sqrt(2.0);
  if (level == MemoryLevel::LLC && llc_top_octave && max_sizes > 1 && top > 1.5 * sizes.back())
    sizes.push_back(top);
  return sizes;
}

namespace {

/// Operand `k` of a class, placed within its page as the workloads place a case's (operand_page_offset).
template <class T>
HostTensor<T> aligned_tensor(Index rows, Index cols, Index items, std::uint64_t seed, int threads,
                             std::size_t k) {
  HostTensor<T> t = operand_tensor<T>({rows, cols, items}, threads, k);
  if (seed != 0) fill_random(t.data(), static_cast<std::size_t>(rows * cols * items), seed);
  return t;
}

/// Adds n to each diagonal: random [0.5, 1.5] entries make a well-conditioned system then.
template <class T>
void make_dominant(HostTensor<T>& a, int n, Index items) {
  T* p = a.data();
  for (Index it = 0; it < items; ++it)
    for (int i = 0; i < n; ++i) p[it * n * n + i * (n + 1)] += n;
}

/// Items a check compares: all of a small batch, else 1024 spread over it (first and last included).
std::vector<Index> checked_items(Index items) {
  constexpr Index kMax = 1024;
  std::vector<Index> out;
  if (items <= kMax) {
    for (Index i = 0; i < items; ++i) out.push_back(i);
    return out;
  }
  for (Index k = 0; k < kMax; ++k) out.push_back(k * (items - 1) / (kMax - 1));
  return out;
}

/// The largest error of the batch's items against a triple loop in double, relative to the largest
/// element of the reference.
template <class T>
double gemm_check(const HostTensor<T>& a, const HostTensor<T>& b, const HostTensor<T>& c, int n,
                  Index items) {
  const T *pa = a.data(), *pb = b.data(), *pc = c.data();
  double diff = 0, scale = 0;
  for (Index it : checked_items(items)) {
    const std::size_t off = static_cast<std::size_t>(it) * n * n;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int p = 0; p < n; ++p) s += double(pa[off + i + p * n]) * double(pb[off + p + j * n]);
        diff = std::max(diff, std::abs(double(pc[off + i + j * n]) - s));
        scale = std::max(scale, std::abs(s));
      }
  }
  return diff / scale;
}

/// max |A x - b| / (max |A| max |x| n): the backward error of the solves.
template <class T>
double solve_check(const HostTensor<T>& a, const HostTensor<T>& b, const HostTensor<T>& x, int n,
                   Index items) {
  const T *pa = a.data(), *pb = b.data(), *px = x.data();
  double worst = 0;
  for (Index it : checked_items(items)) {
    const T* ai = pa + it * n * n;
    const T* xi = px + it * n;
    double amax = 0, xmax = 0, rmax = 0;
    for (int i = 0; i < n * n; ++i) amax = std::max(amax, std::abs(double(ai[i])));
    for (int i = 0; i < n; ++i) xmax = std::max(xmax, std::abs(double(xi[i])));
    for (int i = 0; i < n; ++i) {
      double r = -double(pb[it * n + i]);
      for (int p = 0; p < n; ++p) r += double(ai[i + p * n]) * double(xi[p]);
      rmax = std::max(rmax, std::abs(r));
    }
    worst = std::max(worst, rmax / (amax * xmax * n));
  }
  return worst;
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// Items of a class: its target bytes over one item's bytes, at least one.
Index class_items(BatchedFamily family, int n, double target, std::size_t element_bytes) {
  const double per_item = item_elements(family, n) * static_cast<double>(element_bytes);
  return std::max<Index>(1, static_cast<Index>(target / per_item));
}

/// What a candidate's result must meet against the reference: a few hundred units in the last place
/// of the element type (an f64 candidate off by 1e-10 computes something else; an f32 one rounds
/// every product to 6e-8).
template <class T>
constexpr double check_tolerance() {
  return std::is_same<T, float>::value ? 1e-4 : 1e-10;
}

template <class T>
class ClassBench {
 public:
  ClassBench(const TuneOptions& o, BatchedFamily family, int n, Index items, std::uint64_t seed)
      : options_(o),
        family_(family),
        n_(n),
        items_(items),
        bytes_(item_elements(family, n) * sizeof(T) * static_cast<double>(items_)),
        a_(aligned_tensor<T>(n, n, items_, derive_seed(seed, 0), o.threads, 0)),
        b_(aligned_tensor<T>(n, columns(), items_, derive_seed(seed, 1), o.threads, 1)),
        out_(aligned_tensor<T>(n, columns(), items_, 0, o.threads, 2)) {
    if (family == BatchedFamily::Solve) make_dominant(a_, n, items_);
  }

  Index items() const { return items_; }
  double bytes() const { return bytes_; }

  /// Runs the candidate once; an error message when the engine refuses it or runs it otherwise than
  /// asked (streaming stores these items do not allow: the same route as the regular stores).
  std::string run(Session& s, const TuneCandidate& c) {
    ops::BatchedOptions options;
    options.provider = c.provider;
    options.policy = BatchPolicy{c.strategy, BatchThresholds{}, nullptr};
    options.prefetch = c.prefetch;
    options.streaming_stores = c.streaming_stores;
    options.narrow_vectors = c.narrow_vectors;
    auto ran = family_ == BatchedFamily::Gemm ? ops::batched_gemm_into(s, a_, b_, out_, 1.0, 0.0, options)
                                              : ops::batched_solve_into(s, a_, b_, out_, options);
    Kokkos::fence();
    if (!ran) return ran.error().what();
    if (c.streaming_stores.value_or(false) && !ran->streaming_stores.value_or(false))
      return "streaming stores do not apply to these items";
    if (c.narrow_vectors.value_or(false) && !ran->narrow_vectors.value_or(false))
      return "these items have one width of kernel";
    if (c.prefetch.value_or(false) && !ran->prefetch.value_or(false))
      return "these items have no prefetching kernel";
    return std::string();
  }

  /// B's and the output's columns: n for a GEMM, one right-hand side for a solve.
  Index columns() const { return family_ == BatchedFamily::Gemm ? n_ : 1; }

  double error() const {
    return family_ == BatchedFamily::Gemm ? gemm_check(a_, b_, out_, n_, items_)
                                          : solve_check(a_, b_, out_, n_, items_);
  }

  /// Seconds per operation in the steady state of repeated calls (steady_seconds_per_call).
  double sample(Session& s, const TuneCandidate& c) {
    return steady_seconds_per_call([&] { run(s, c); }, options_.min_time_s);
  }

 private:
  const TuneOptions& options_;
  BatchedFamily family_;
  int n_;
  Index items_ = 0;
  double bytes_ = 0;
  HostTensor<T> a_, b_, out_;
};

}  // namespace

std::vector<TuneCandidate> candidates_of(BatchedFamily family, int threads, MemoryLevel level,
                                         bool two_widths, bool prefetching) {
  std::vector<TuneCandidate> out;
  auto sequential = [&](ItemProvider p) {
    out.push_back({p, BatchStrategy::Sequential, kNaN, kNaN, {}});
    if (threads > 1) out.push_back({p, BatchStrategy::OuterParallel, kNaN, kNaN, {}});
  };
  // The specialized kernel's and libxsmm's GEMM items with regular and with streaming stores of C. A
  // streaming store skips reading the line it overwrites but sends it past the caches: on the Xeon
  // libxsmm's was 10-16% faster for batches from DRAM and 1.6x slower for 16 x 16 items in the two
  // cores' L2. Not in the L1, where C stays between calls and such a store can only evict it.
  const std::vector<bool> stores =
      level == MemoryLevel::L1 ? std::vector<bool>{false} : std::vector<bool>{false, true};
  auto with_stores = [&](ItemProvider p, std::optional<bool> prefetch) {
    for (bool stream : stores) {
      const std::size_t first = out.size();
      sequential(p);
      for (std::size_t i = first; i < out.size(); ++i)
        out[i].prefetch = prefetch, out[i].streaming_stores = stream;
    }
  };
  if (family == BatchedFamily::Gemm) {
    // Where the kernel can prefetch, each candidate says whether it does: left empty, the route would
    // take the built-in rule (on beyond the L2), and the two would measure the same route.
    with_stores(ItemProvider::Specialized, prefetching ? std::optional<bool>(false) : std::nullopt);
    if (prefetching) with_stores(ItemProvider::Specialized, true);
    if (two_widths) {
      const std::size_t first = out.size();
      with_stores(ItemProvider::Specialized, std::nullopt);
      for (std::size_t i = first; i < out.size(); ++i) out[i].narrow_vectors = true;
    }
    // libxsmm with and without prefetching the next item: which wins depends on the machine and on
    // where the batch lives (on a Xeon, off 9% faster for 32 x 32 items in the LLC, on 4-19% from DRAM).
    for (bool prefetch : {false, true}) with_stores(ItemProvider::Libxsmm, prefetch);
    sequential(ItemProvider::KokkosBatched);
  } else {
    sequential(ItemProvider::Specialized);
  }
  out.push_back({ItemProvider::Blas, BatchStrategy::ProviderItems, kNaN, kNaN, {}});
  return out;
}

std::string TuneCandidate::label() const {
  return ops::describe(choice());
}

std::optional<ops::TuningChoice> choose_fastest(std::vector<TuneCandidate>& candidates,
                                                const std::vector<std::vector<double>>& samples) {
  std::vector<ops::TunedTime> times;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    TuneCandidate& c = candidates[i];
    if (!c.skipped.empty() || i >= samples.size() || samples[i].empty()) continue;
    c.median_s = median(samples[i]);
    c.best_s = *std::min_element(samples[i].begin(), samples[i].end());
    times.push_back({c.choice(), c.best_s, c.median_s});
  }
  // The rule lookup()'s interpolation between two classes takes too (docs/tuning.md, step 4).
  const auto chosen = ops::choose_measured(times);
  if (!chosen) return std::nullopt;
  return times[*chosen].choice;
}

void drop_slow_candidates(std::vector<TuneCandidate>& candidates,
                          const std::vector<std::vector<double>>& samples) {
  const auto best_of = [&](std::size_t i) { return *std::min_element(samples[i].begin(), samples[i].end()); };
  double fastest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < candidates.size() && i < samples.size(); ++i)
    if (candidates[i].skipped.empty() && !samples[i].empty()) fastest = std::min(fastest, best_of(i));
  for (std::size_t i = 0; i < candidates.size() && i < samples.size(); ++i) {
    if (!candidates[i].skipped.empty() || samples[i].empty() || best_of(i) <= 3.0 * fastest) continue;
    std::ostringstream why;
    why << "over 3x the fastest in its best of the first " << samples[i].size() << " rounds ("
        << best_of(i) * 1e6 << " us vs " << fastest * 1e6 << " us)";
    candidates[i].skipped = why.str();
    candidates[i].median_s = median(samples[i]);
    candidates[i].best_s = best_of(i);
  }
}

namespace {

std::string describe_result(const TuneClassResult& r) {
  std::ostringstream line;
  line << (r.cls.family == BatchedFamily::Gemm ? "gemm" : "solve") << " " << name(r.cls.dtype)
       << " n=" << r.cls.item_dim << " " << ops::name(r.cls.level) << " (" << r.items << " items, "
       << r.operand_bytes / (1024.0 * 1024) << " MiB) " << r.cls.threads << "T: ";
  if (!r.choice) return line.str() + "no candidate passed";
  for (const TuneCandidate& c : r.candidates) {
    if (!c.skipped.empty()) continue;
    const bool won = c.choice() == *r.choice;
    line << (won ? "[" : "") << c.label() << " " << c.best_s * 1e6 << " us" << (won ? "] " : " ");
  }
  if (r.attempts > 1 || r.busy_host) {
    const auto percent = [](double share) {
      return std::isfinite(share) ? std::to_string(std::lround(100 * share)) + "%" : std::string("unknown");
    };
    line << "(host " << (r.busy_host ? "still busy" : "busy before") << ": other work "
         << percent(r.host_other_cpu) << ", steal " << percent(r.host_steal) << "; " << r.attempts
         << " attempts" << (r.busy_host ? ", not used by Auto)" : ")");
  }
  return line.str();
}

template <class T>
TuneClassResult tune_class(const TuneOptions& o, Session& session, BatchedFamily family, int n,
                           MemoryLevel level, Index items, std::uint64_t seed) {
  ClassBench<T> bench(o, family, n, items, seed);
  TuneClassResult result;
  result.cls = ops::TuningClass{family, dtype_of<T>(), n, level, o.threads, bench.bytes()};
  result.items = bench.items();
  result.operand_bytes = bench.bytes();
  result.candidates = candidates_of(
      family, o.threads, level, family == BatchedFamily::Gemm && ops::has_two_kernel_widths(dtype_of<T>(), n),
      family == BatchedFamily::Gemm && ops::has_prefetching_kernel(dtype_of<T>(), n));
  // Correct before fast: each candidate runs once and is compared with the reference.
  const double tolerance = check_tolerance<T>();
  for (TuneCandidate& c : result.candidates) {
    c.skipped = bench.run(session, c);
    if (!c.skipped.empty()) continue;
    c.max_rel_error = bench.error();
    if (!(c.max_rel_error <= tolerance)) c.skipped = "failed its check";
  }
  // Interleaved rounds, each starting at another candidate, so that drift hits every candidate alike.
  // After two rounds a candidate whose better round is 3x slower than the fastest's is out: a per-item
  // BLAS call over a DRAM batch of 2 x 2 items would otherwise take most of the calibration. Two, not
  // one: on the 2-core VM one round's interference made the 2-thread fan-out 3x slower than it is,
  // and dropped a candidate that quiet measurements put fastest there.
  // Rounds that ran on a busy host are measured again: interference slows candidates unevenly (a
  // first-use calibration on the Xeon VM had the 2-thread fan-outs 2x slower than one thread).
  const std::vector<TuneCandidate> checked = result.candidates;
  const std::size_t count = checked.size();
  const QuietMeasurement q = measure_quietly(o, [&] {
    result.candidates = checked;
    std::vector<std::vector<double>> samples(count);
    for (int round = 0; round < o.rounds; ++round) {
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(round)) % count;
        if (result.candidates[i].skipped.empty())
          samples[i].push_back(bench.sample(session, result.candidates[i]));
      }
      if (round == 1) drop_slow_candidates(result.candidates, samples);
    }
    result.choice = choose_fastest(result.candidates, samples);
  });
  result.attempts = q.attempts;
  result.host_other_cpu = q.host_other_cpu;
  result.host_steal = q.host_steal;
  result.busy_host = q.busy_host;
  return result;
}

/// One class to measure: what tune_class takes besides the options and the session.
struct ClassPoint {
  DType dtype;
  BatchedFamily family;
  int n;
  MemoryLevel level;
  Index items;
  std::uint64_t seed;
};

template <class Backend>
TuneClassResult tune_point(const TuneOptions& options, Backend& backend, const ClassPoint& at) {
  TuneClassResult result;
  auto entered = backend.with_session([&](Session& session) {
    result = at.dtype == DType::F32
                 ? tune_class<float>(options, session, at.family, at.n, at.level, at.items, at.seed)
                 : tune_class<double>(options, session, at.family, at.n, at.level, at.items, at.seed);
  });
  if (!entered) throw WorkloadError("tune: session entry failed: " + entered.error().message);
  return result;
}

}  // namespace

std::vector<TuneClassResult> tune_batched(const TuneOptions& options,
                                          const std::function<void(const std::string&)>& progress) {
  const RunContext ctx{options.space, options.threads, options.seed};
  const int blas_before = blas_threads();
  set_blas_threads(options.threads);
  std::vector<TuneClassResult> results;
  auto backend = make_backend(ctx);
  std::vector<BatchedFamily> families;
  if (options.gemm) families.push_back(BatchedFamily::Gemm);
  if (options.solve) families.push_back(BatchedFamily::Solve);
  // The levels of the caches the workers hold between them: the lookup classifies a call the same way.
  const ops::CacheSizes caches = ops::caches_for_threads(options.caches, options.threads);
  std::vector<std::pair<std::size_t, ClassPoint>> still_busy;  // index into results, and what it measured
  for (DType dtype : options.dtypes) {
    const std::size_t element_bytes = size_of(dtype);
    for (BatchedFamily family : families) {
      for (MemoryLevel level : options.levels) {
        for (int n : options.item_dims) {
          // A class whose smallest batch (one item) already spills its level cannot be measured there.
          const double one_item = item_elements(family, n) * static_cast<double>(element_bytes);
          if (ops::memory_level(one_item, caches) > level) continue;
          Index previous_items = 0;
          std::uint64_t point = 0;
          for (double target : target_bytes(level, caches, options.dram_bytes, options.max_sizes_per_level,
                                            options.llc_top_octave)) {
            const Index items = class_items(family, n, target, element_bytes);
            ++point;
            if (items == previous_items) continue;  // large items: two sizes round to one batch
            previous_items = items;
            const std::uint64_t seed = derive_seed(
                options.seed, ((static_cast<std::uint64_t>(n) * 16 + int(level)) * 8 + point) * 4 +
                                  int(dtype == DType::F32));
            const ClassPoint at{dtype, family, n, level, items, seed};
            results.push_back(tune_point(options, backend, at));
            if (results.back().busy_host) still_busy.push_back({results.size() - 1, at});
            if (progress) progress(describe_result(results.back()));
          }
        }
      }
    }
  }
  // The classes still busy after their retries are measured once more at the end: their retries ran
  // seconds apart, inside the same burst of other work (a 3-second test beside a tune left 2 classes
  // busy on the EPYC VM, and Auto then took n = 16's route for n = 8 from DRAM, 0.91x a peer).
  for (const auto& [index, at] : still_busy) {
    TuneClassResult again = tune_point(options, backend, at);
    again.attempts += results[index].attempts;
    if (!again.busy_host)
      results[index] = std::move(again);
    else
      results[index].attempts = again.attempts;
    if (progress) progress(describe_result(results[index]) + " [measured again after the other classes]");
  }
  set_blas_threads(blas_before);
  return results;
}

}  // namespace tfbench::workloads
