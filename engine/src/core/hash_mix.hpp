#pragma once
// The one hash combiner of the engine's keys (plan keys, the lanes' learned splits): boost's
// hash_combine step on 64-bit words.

#include <cstdint>

namespace tfbench::impl {

/// `seed` with `value` mixed in.
inline std::uint64_t hash_mix(std::uint64_t seed, std::uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

}  // namespace tfbench::impl
