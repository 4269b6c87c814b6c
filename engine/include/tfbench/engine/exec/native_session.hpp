#pragma once
// The native session token: bounded access to a backend's native resources. A session hands out at most one
// token, owned by the session itself; code receives `NativeSessionRef*` from Session::native_session() and
// may only pass it to the visitor of the backend that made it (with_cpu_native / with_device_native). The
// token:
//  - cannot be forged: its only constructor is private and only the backends are friends; the marker
//    it carries is a private object of the backend's translation unit, checked by the visitor;
//  - cannot be copied or moved (so it cannot outlive the session it lives in by value);
//  - is bound to the thread that entered the session: a visitor on another thread refuses it;
//  - is detected once its session has ended: C++ cannot stop a pointer to it from escaping the
//    callback, so the visitor first checks, without reading a dead object, that the pointer is the
//    live token of a session (tokens live in per-thread rings that are never freed; see
//    engine/src/exec/token_ring.hpp) and refuses an expired one (NativeAccessError::Expired).
// A custom session returns no token by default; a wrapper may forward its delegate's token on purpose.
// No Kokkos here, so the compile-fail checks can include this header alone.

#include <atomic>
#include <thread>

namespace tfbench {

namespace impl {
class TokenRing;
struct TokenRingStorage;
struct NativeTokenAccess;
}  // namespace impl

class NativeSessionRef {
 public:
  NativeSessionRef(const NativeSessionRef&) = delete;
  NativeSessionRef(NativeSessionRef&&) = delete;
  NativeSessionRef& operator=(const NativeSessionRef&) = delete;
  NativeSessionRef& operator=(NativeSessionRef&&) = delete;
  ~NativeSessionRef() = default;

  /// The thread that entered the session this token belongs to (while its session is live).
  std::thread::id owner_thread() const { return owner_; }

 private:
  friend struct impl::NativeTokenAccess;  // the backends' visitor (engine/src/exec/backend.cpp)
  friend class impl::TokenRing;
  friend struct impl::TokenRingStorage;
  NativeSessionRef() noexcept = default;  // a ring slot; made live by TokenRing::acquire

  const void* marker_ = nullptr;  // identifies the backend leaf that made the token
  void* native_ = nullptr;        // that leaf's native session services
  std::thread::id owner_;
  std::atomic<bool> live_{false};  // its session has not ended
};

}  // namespace tfbench
