// Must not compile: only the backends can construct a native session token.
#include "tfbench/engine/exec/native_session.hpp"

static const char my_marker = 0;
int main() {
  int fake_session = 0;
  tfbench::NativeSessionRef forged(&my_marker, &fake_session);
  (void)forged;
}
