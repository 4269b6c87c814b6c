// Must compile: the same harness accepts legitimate use, so the failures above are the checks.
#include "tfbench/engine/exec/native_session.hpp"

bool owned_here(const tfbench::NativeSessionRef* token) {
  return token && token->owner_thread() == std::this_thread::get_id();
}
int main() {
  return owned_here(nullptr) ? 1 : 0;
}
