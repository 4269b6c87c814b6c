// Must not compile: a token cannot be moved (to another thread or anywhere else).
#include <utility>

#include "tfbench/engine/exec/native_session.hpp"

void keep(tfbench::NativeSessionRef& token) {
  tfbench::NativeSessionRef moved(std::move(token));
  (void)moved;
}
int main() {}
