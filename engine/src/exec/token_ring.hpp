#pragma once
// Where native session tokens live, so that an escaped token is detected without reading a dead
// object. Each thread that enters sessions owns a ring of token slots; a session takes the next free
// slot and frees it when it ends. Rings are never freed (a finished thread's ring goes to the next new
// thread), so a pointer into a ring stays readable forever, and each slot says whether it is live.
// A token pointer is therefore judged by where it points and by its slot's live flag alone:
//  - outside every ring: not a token of any session (Expired);
//  - a freed slot: its session has ended (Expired);
//  - a live slot of another thread's ring: WrongThread, without reading it;
//  - a live slot of this thread's ring: readable, checked for backend and owner by the visitor.
// A stale pointer aliases a live token only when its thread has run kSlots later sessions and the
// newest one sits in the same slot (docs/sessions.md, "Native session token").

#include <cstddef>

#include "tfbench/engine/exec/native_session.hpp"

namespace tfbench::impl {

class TokenRing {
 public:
  static constexpr std::size_t kSlots = 1024;
  enum class Liveness { LiveHere, LiveElsewhere, Expired };

  /// A live token of this thread for (marker, native); nullptr when every slot is live.
  static NativeSessionRef* acquire(const void* marker, void* native) noexcept;
  /// Frees the token's slot (from any thread; a no-op for nullptr).
  static void release(NativeSessionRef* token) noexcept;
  /// Judges a pointer without dereferencing it unless it is a live slot of this thread's ring.
  static Liveness check(const NativeSessionRef* token) noexcept;
};

/// A token for the scope of one session (or held root), released on every exit path.
class ScopedToken {
 public:
  ScopedToken(const void* marker, void* native) noexcept : token_(TokenRing::acquire(marker, native)) {}
  ~ScopedToken() { TokenRing::release(token_); }
  ScopedToken(const ScopedToken&) = delete;
  ScopedToken& operator=(const ScopedToken&) = delete;
  NativeSessionRef* get() const noexcept { return token_; }

 private:
  NativeSessionRef* token_;
};

}  // namespace tfbench::impl
