#pragma once
// The session entry path shared by the backends. The template wraps the callback so that admission,
// the concrete session and cleanup live in one .cpp function: no allocation, no OpenMP region.

#include <new>
#include <type_traits>
#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/impl/function_ref.hpp"
#include "tfbench/engine/exec/session_error.hpp"

namespace tfbench {
class Session;
}

namespace tfbench::impl {

class BackendState;

template <class F>
using SessionResult = std::decay_t<std::invoke_result_t<F&, Session&>>;

/// Admits the calling thread to `state` (typed errors before body runs), runs body on a fresh
/// session, and releases everything on return and on exception.
Result<void, SessionEntryError> run_session(BackendState* state, FunctionRef<void(Session&)> body);

template <class F>
Result<SessionResult<F>, SessionEntryError> enter_with(BackendState* state, F&& f) {
  using R = SessionResult<F>;
  if constexpr (std::is_void<R>::value) {
    return run_session(state, [&](Session& session) { f(session); });
  } else {
    // f's result in raw storage rather than a std::optional: GCC 12 zeroed the optional's 152 bytes
    // (a libc memset) on every entry of a batched operation.
    struct Slot {
      alignas(R) unsigned char bytes[sizeof(R)];
      bool made = false;
      R& value() { return *std::launder(reinterpret_cast<R*>(bytes)); }
      ~Slot() {
        if (made) value().~R();
      }
    } out;
    auto entered = run_session(state, [&](Session& session) {
      ::new (static_cast<void*>(out.bytes)) R(f(session));
      out.made = true;
    });
    if (!entered) return unexpected(entered.error());
    return Result<R, SessionEntryError>(std::move(out.value()));
  }
}

}  // namespace tfbench::impl
