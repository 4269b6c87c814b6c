// Built in thread-sanitized builds only (tests/engine/exec/CMakeLists.txt): does ThreadSanitizer see
// OpenMP code as it is? The tests that run it pass only if
//   tsan_canary ordered   runs clean: the pattern of the engine's fan-outs (the caller writes the
//                         inputs, lanes read them and write disjoint halves of the output, the caller
//                         reads it after the join), plus a barrier between a write and a read inside
//                         the region. Every edge here is the runtime's, which ThreadSanitizer sees only
//                         through Archer (cmake/TfbenchThreadSanitizer.cmake);
//   tsan_canary race      is reported: two lanes increment one plain int.
// Exit status: 0 when the values computed are right (the report decides the rest), 2 on bad usage.

#include <omp.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int run_ordered() {
  constexpr int kCount = 4096;
  std::vector<double> input(kCount), output(kCount);
  std::vector<double> staged(2);
  double total = 0;
  for (int round = 0; round < 64; ++round) {
    for (int i = 0; i < kCount; ++i) input[i] = round + i;  // the caller's writes before the region
#pragma omp parallel num_threads(2)
    {
      const int lane = omp_get_thread_num();
      const int lanes = omp_get_num_threads();
      const int begin = kCount * lane / lanes, end = kCount * (lane + 1) / lanes;
      for (int i = begin; i < end; ++i) output[i] = 2.0 * input[kCount - 1 - i];
      if (lane == 0) staged[0] = input[0];
#pragma omp barrier
      if (lane == lanes - 1) staged[1] = staged[0] + 1.0;  // read after the barrier
    }
    for (int i = 0; i < kCount; ++i) total += output[i];  // the caller's reads after the join
    total += staged[1];
  }
  // sum over rounds of 2 * sum(round + i) + round + 1
  double expected = 0;
  for (int round = 0; round < 64; ++round)
    expected += 2.0 * (double(round) * kCount + double(kCount) * (kCount - 1) / 2) + round + 1;
  if (total != expected) {
    std::fprintf(stderr, "tsan_canary ordered: total %.17g, expected %.17g\n", total, expected);
    return 1;
  }
  std::printf("tsan_canary ordered: total %.17g\n", total);
  return 0;
}

int run_race() {
  int shared = 0;
#pragma omp parallel num_threads(2)
  { shared += 1; }  // the race to be reported
  std::printf("tsan_canary race: %d\n", shared);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "ordered") == 0) return run_ordered();
  if (argc == 2 && std::strcmp(argv[1], "race") == 0) return run_race();
  std::fprintf(stderr, "usage: tsan_canary ordered|race\n");
  return 2;
}
