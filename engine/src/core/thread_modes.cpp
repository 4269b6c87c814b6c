#include "tfbench/engine/core/thread_modes.hpp"

namespace tfbench {

ThreadModes& thread_modes() noexcept {
  thread_local ThreadModes modes;
  return modes;
}

}  // namespace tfbench
