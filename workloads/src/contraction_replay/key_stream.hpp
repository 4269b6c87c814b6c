#pragma once
// The contractions of contraction_replay and the streams of keys that drive them. A key is one
// contraction with fixed operand layouts: an einsum spec whose labels give each operand's axis order
// (operands are compact column-major in that order) and the extent of every label. Keys differ in
// extents and in axis orders, so consecutive calls change shape and layout.
//
//   binary  "ijk,jkl->il" with every axis order of A (3!) and B (3!), output il or li, and
//           extents i = s + d1, j = s, k = s/2 + d2, l = s (d in {0, 1, 3}): 648 keys
//   nary    "ij,jk,kl->il" with each matrix stored as is or transposed, output il or li, and
//           extents i, j, k, l in {s, s + 1, s + 3}: 1296 keys
//
// Streams (`keys`): fixed repeats one key; mixed cycles through `mixed_keys` keys; fresh walks the
// whole table, longer than the plan cache (256 entries), so an LRU cache never sees a key again
// before it was evicted.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfbench::workloads::contraction_replay {

struct OperandKey {
  std::string labels;               // axis order
  std::vector<std::int64_t> shape;  // extents in that order (compact column-major storage)
  std::int64_t elements() const;
};

struct ContractionKey {
  std::vector<OperandKey> inputs;
  OperandKey output;
  std::map<char, std::int64_t> extent;
  std::string spec() const;  // "kij,ljk->il"
  /// Multiply-adds of the contraction as written (all labels' extents multiplied).
  double muladds() const;
  /// Multiply-adds of the cheapest pairwise evaluation (what a greedy path or a careful peer does).
  double best_path_muladds() const;
};

enum class StreamKind { Fixed, Mixed, Fresh };

struct StreamSpec {
  std::string kind;  // "binary" or "nary"
  StreamKind keys = StreamKind::Fixed;
  std::int64_t size = 16;
  std::int64_t calls = 16;
  std::int64_t mixed_keys = 4;
};

/// Every key of a kind, in a fixed pseudo-random order (neighbours differ in layout and extents).
std::vector<ContractionKey> key_table(const std::string& kind, std::int64_t size);

/// The keys one stream cycles through (the table for fresh, its head for fixed and mixed).
std::vector<ContractionKey> stream_keys(const StreamSpec& spec);

/// Largest element count of each input position and of the output over `keys`.
std::vector<std::int64_t> max_elements(const std::vector<ContractionKey>& keys);

/// Naive reference: out = contraction(inputs) accumulated in long double over every label.
std::vector<double> reference(const ContractionKey& key, const std::vector<const double*>& inputs);

}  // namespace tfbench::workloads::contraction_replay
