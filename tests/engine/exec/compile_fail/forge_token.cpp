// Must not compile: only the engine (the token rings) can construct a native session token.
#include "tfbench/engine/exec/native_session.hpp"

int main() {
  tfbench::NativeSessionRef forged;
  (void)forged;
}
