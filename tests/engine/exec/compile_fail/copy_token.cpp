// Must not compile: a token cannot be copied out of the session that owns it.
#include "tfbench/engine/exec/native_session.hpp"

tfbench::NativeSessionRef* escape(tfbench::NativeSessionRef& token) {
  static tfbench::NativeSessionRef copy = token;
  return &copy;
}
int main() {}
