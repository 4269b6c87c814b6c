#pragma once
// The native session token (seed D7). A session hands out at most one token, owned by the session
// itself; code receives `NativeSessionRef*` from Session::native_session() and may only pass it to the
// visitor of the backend that made it (with_cpu_native / with_device_native). The token:
//  - cannot be forged: its only constructor is private and only the backends are friends; the marker
//    it carries is a private object of the backend's translation unit, checked by the visitor;
//  - cannot be copied or moved (so it cannot outlive the session it lives in by value);
//  - is bound to the thread that entered the session: a visitor on another thread refuses it.
// A custom session returns no token by default; a wrapper may forward its delegate's token on purpose.
// No Kokkos here, so the compile-fail checks can include this header alone.

#include <thread>

namespace tfbench {

class CpuBackend;
class DeviceBackend;

class NativeSessionRef {
 public:
  NativeSessionRef(const NativeSessionRef&) = delete;
  NativeSessionRef(NativeSessionRef&&) = delete;
  NativeSessionRef& operator=(const NativeSessionRef&) = delete;
  NativeSessionRef& operator=(NativeSessionRef&&) = delete;
  ~NativeSessionRef() = default;

  /// The thread that entered the session this token belongs to.
  std::thread::id owner_thread() const { return owner_; }

 private:
  friend class CpuBackend;
  friend class DeviceBackend;
  NativeSessionRef(const void* marker, void* native) noexcept
      : marker_(marker), native_(native), owner_(std::this_thread::get_id()) {}

  const void* marker_;  // identifies the backend leaf that made the token
  void* native_;        // that leaf's native session services
  std::thread::id owner_;
};

}  // namespace tfbench
