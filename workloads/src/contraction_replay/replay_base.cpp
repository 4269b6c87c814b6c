#include "contraction_replay/replay_base.hpp"

#include "common/check.hpp"
#include "common/random.hpp"

namespace tfbench::workloads::contraction_replay {

ReplayBase::ReplayBase(const StreamSpec& spec, const RunContext& ctx)
    : spec_(spec), threads_(ctx.threads), keys_(stream_keys(spec)) {
  const auto sizes = max_elements(keys_);
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    in_.emplace_back(static_cast<std::size_t>(sizes[i]), ctx.threads);
    const std::uint64_t seed = derive_seed(ctx.seed, 501 + i);
    for (std::size_t e = 0; e < in_.back().size(); ++e) in_.back()[e] = random_at(seed, e);
  }
  out_ = AlignedBuffer<double>(static_cast<std::size_t>(sizes.back()), ctx.threads);
}

CheckResult ReplayBase::check() {
  std::vector<double> actual, ref;
  std::vector<const double*> inputs;
  for (auto& b : in_) inputs.push_back(b.data());
  const std::size_t n = std::min<std::size_t>(keys_.size(), static_cast<std::size_t>(spec_.calls));
  double terms = 1.0;
  for (std::size_t q = 0; q < n; ++q) {
    const ContractionKey& k = keys_[q];
    call(q);
    const auto r = reference(k, inputs);
    ref.insert(ref.end(), r.begin(), r.end());
    actual.insert(actual.end(), out_.data(), out_.data() + r.size());
    terms = std::max(terms, k.muladds() / static_cast<double>(k.output.elements()));
  }
  return compare_outputs(
      std::move(actual), ref, tolerance_for<double>(terms),
      std::to_string(n) + " keys of the " + spec_.kind + " stream against naive long-double contractions");
}

void ReplayBase::run() {
  for (std::int64_t c = 0; c < spec_.calls; ++c) {
    call(cursor_);
    cursor_ = (cursor_ + 1) % keys_.size();
  }
}

Work ReplayBase::work() const {
  double flops = 0.0, bytes = 0.0, stored = 0.0;
  for (const auto& k : keys_) {
    flops += 2.0 * k.best_path_muladds();
    double elements = static_cast<double>(k.output.elements());
    for (const auto& in : k.inputs) elements += static_cast<double>(in.elements());
    bytes += 8.0 * elements;
    stored += 8.0 * static_cast<double>(k.output.elements());  // overwritten, not read
  }
  const double scale = static_cast<double>(spec_.calls) / static_cast<double>(keys_.size());
  // The calls cycle through the same input buffers and one output buffer: the footprint.
  double footprint = static_cast<double>(out_.size());
  for (const auto& in : in_) footprint += static_cast<double>(in.size());
  Work w{flops * scale, bytes * scale, 8.0 * footprint};
  w.write_allocate_bytes = stored * scale;
  return w;
}

}  // namespace tfbench::workloads::contraction_replay
