#include "contraction_replay/key_stream.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace tfbench::workloads::contraction_replay {
namespace {

OperandKey operand(const std::string& labels, const std::map<char, std::int64_t>& extent) {
  OperandKey o{labels, {}};
  for (char c : labels) o.shape.push_back(extent.at(c));
  return o;
}

std::vector<std::string> permutations(std::string labels) {
  std::sort(labels.begin(), labels.end());
  std::vector<std::string> out;
  do out.push_back(labels);
  while (std::next_permutation(labels.begin(), labels.end()));
  return out;
}

std::vector<ContractionKey> binary_table(std::int64_t s) {
  std::vector<ContractionKey> keys;
  const std::int64_t deltas[] = {0, 1, 3};
  for (std::int64_t d1 : deltas) {
    for (std::int64_t d2 : deltas) {
      const std::map<char, std::int64_t> extent = {
          {'i', s + d1}, {'j', s}, {'k', std::max<std::int64_t>(1, s / 2) + d2}, {'l', s}};
      for (const auto& a : permutations("ijk")) {
        for (const auto& b : permutations("jkl")) {
          for (const char* out : {"il", "li"}) {
            keys.push_back({{operand(a, extent), operand(b, extent)}, operand(out, extent), extent});
          }
        }
      }
    }
  }
  return keys;
}

std::vector<ContractionKey> nary_table(std::int64_t s) {
  std::vector<ContractionKey> keys;
  const std::int64_t e[] = {s, s + 1, s + 3};
  for (std::int64_t i : e)
    for (std::int64_t j : e)
      for (std::int64_t k : e)
        for (std::int64_t l : e) {
          const std::map<char, std::int64_t> extent = {{'i', i}, {'j', j}, {'k', k}, {'l', l}};
          for (int t = 0; t < 16; ++t) {
            const std::string a = (t & 1) ? "ji" : "ij", b = (t & 2) ? "kj" : "jk", c = (t & 4) ? "lk" : "kl";
            const std::string out = (t & 8) ? "li" : "il";
            keys.push_back(
                {{operand(a, extent), operand(b, extent), operand(c, extent)}, operand(out, extent), extent});
          }
        }
  return keys;
}

}  // namespace

std::int64_t OperandKey::elements() const {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<std::int64_t>());
}

std::string ContractionKey::spec() const {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i) s += (i ? "," : "") + inputs[i].labels;
  return s + "->" + output.labels;
}

double ContractionKey::muladds() const {
  double m = 1.0;
  for (const auto& [label, n] : extent) m *= static_cast<double>(n);
  return m;
}

double ContractionKey::best_path_muladds() const {
  if (inputs.size() == 2) return muladds();
  // ij,jk,kl: (AB)C costs ijk + ikl, A(BC) costs jkl + ijl.
  const double i = extent.at('i'), j = extent.at('j'), k = extent.at('k'), l = extent.at('l');
  return std::min(i * j * k + i * k * l, j * k * l + i * j * l);
}

std::vector<ContractionKey> key_table(const std::string& kind, std::int64_t size) {
  std::vector<ContractionKey> keys = kind == "binary" ? binary_table(size) : nary_table(size);
  // A fixed shuffle: consecutive keys of a stream differ in extents and layout alike.
  std::mt19937_64 rng(0x7FB3C0DE);
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

std::vector<ContractionKey> stream_keys(const StreamSpec& spec) {
  auto keys = key_table(spec.kind, spec.size);
  switch (spec.keys) {
    case StreamKind::Fixed:
      keys.resize(1);
      break;
    case StreamKind::Mixed:
      keys.resize(static_cast<std::size_t>(
          std::min<std::int64_t>(spec.mixed_keys, static_cast<std::int64_t>(keys.size()))));
      break;
    case StreamKind::Fresh:
      break;
  }
  return keys;
}

std::vector<std::int64_t> max_elements(const std::vector<ContractionKey>& keys) {
  std::vector<std::int64_t> m(keys.front().inputs.size() + 1, 0);
  for (const auto& k : keys) {
    for (std::size_t i = 0; i < k.inputs.size(); ++i) m[i] = std::max(m[i], k.inputs[i].elements());
    m.back() = std::max(m.back(), k.output.elements());
  }
  return m;
}

std::vector<double> reference(const ContractionKey& key, const std::vector<const double*>& inputs) {
  // Odometer over every label; each operand's offset is its column-major position.
  std::vector<char> labels;
  std::vector<std::int64_t> extents;
  for (const auto& [c, n] : key.extent) {
    labels.push_back(c);
    extents.push_back(n);
  }
  auto offset = [&](const OperandKey& op, const std::vector<std::int64_t>& idx) {
    std::int64_t off = 0, stride = 1;
    for (std::size_t a = 0; a < op.labels.size(); ++a) {
      const auto pos = std::find(labels.begin(), labels.end(), op.labels[a]) - labels.begin();
      off += idx[static_cast<std::size_t>(pos)] * stride;
      stride *= op.shape[a];
    }
    return off;
  };
  std::vector<long double> acc(static_cast<std::size_t>(key.output.elements()), 0.0L);
  std::vector<std::int64_t> idx(labels.size(), 0);
  for (;;) {
    long double p = 1.0L;
    for (std::size_t o = 0; o < key.inputs.size(); ++o) p *= inputs[o][offset(key.inputs[o], idx)];
    acc[static_cast<std::size_t>(offset(key.output, idx))] += p;
    std::size_t d = 0;
    while (d < idx.size() && ++idx[d] == extents[d]) idx[d++] = 0;
    if (d == idx.size()) break;
  }
  return std::vector<double>(acc.begin(), acc.end());
}

}  // namespace tfbench::workloads::contraction_replay
