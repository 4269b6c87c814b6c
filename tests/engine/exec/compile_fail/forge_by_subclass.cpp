// Must not compile: deriving from the token does not grant its private constructor.
#include "tfbench/engine/exec/native_session.hpp"

struct Forger : tfbench::NativeSessionRef {
  Forger() : tfbench::NativeSessionRef() {}
};
int main() {
  Forger f;
}
