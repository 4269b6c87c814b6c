#pragma once
// Per-thread operation modes that session callbacks carry: the
// calling thread's modes hold inside its session callbacks, also where a callback (a lane) runs on a
// worker thread; a guard opened inside a callback stays local to it, and a worker's own modes are
// restored when the callback returns or unwinds. The AD concern keeps its no_grad depth here; exec
// copies the modes to lane threads, so neither depends on the other.

namespace tfbench {

struct ThreadModes {
  int no_grad_depth = 0;  // > 0: AD does not record operations (ad::NoGradGuard)
};

/// This thread's modes.
ThreadModes& thread_modes() noexcept;

/// Installs `modes` on this thread for its scope; the previous modes come back on return or unwind.
class ScopedThreadModes {
 public:
  explicit ScopedThreadModes(const ThreadModes& modes) noexcept : previous_(thread_modes()) {
    thread_modes() = modes;
  }
  ~ScopedThreadModes() { thread_modes() = previous_; }
  ScopedThreadModes(const ScopedThreadModes&) = delete;
  ScopedThreadModes& operator=(const ScopedThreadModes&) = delete;

 private:
  ThreadModes previous_;
};

}  // namespace tfbench
