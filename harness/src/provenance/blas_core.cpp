#include "provenance/blas_core.hpp"

#include "tfbench/harness/system_info.hpp"
#include "tfbench/harness/text.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace tfbench::harness {
namespace {

/// OpenBLAS's names of the cores whose kernels use no AVX (DYNAMIC_ARCH's fallbacks included).
bool sse_era(const std::string& core) {
  static constexpr std::array<std::string_view, 16> kCores = {
      "prescott",  "core2",  "penryn",  "dunnington",   "nehalem",   "atom",   "katmai",  "coppermine",
      "northwood", "banias", "opteron", "opteron_sse3", "barcelona", "bobcat", "unknown", "generic"};
  const std::string name = to_lower(core);
  return std::find(kCores.begin(), kCores.end(), name) != kCores.end();
}

std::string& forced() {
  static std::string text;
  return text;
}

}  // namespace

std::string openblas_core_correction(const std::string& detected) {
  if (!sse_era(detected)) return "";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

void correct_openblas_core() {
  if (const char* chosen = std::getenv("OPENBLAS_CORETYPE"); chosen && *chosen) return;  // the user's
  const std::string detected = blas_core_name();
  const std::string core = openblas_core_correction(detected);
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  forced() = core + " (OpenBLAS detected " + detected + ")";
}

const std::string& forced_openblas_core() {
  return forced();
}

}  // namespace tfbench::harness
