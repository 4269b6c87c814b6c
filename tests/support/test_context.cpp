#include "test_context.hpp"

namespace tfbench::testing {
namespace {
ExecSpaceKind g_space = ExecSpaceKind::Serial;
int g_threads = 1;
}  // namespace

ExecSpaceKind space() {
  return g_space;
}
int threads() {
  return g_threads;
}

namespace detail {
void set_context(ExecSpaceKind space, int threads) {
  g_space = space;
  g_threads = threads;
}
}  // namespace detail

}  // namespace tfbench::testing
