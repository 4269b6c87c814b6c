#pragma once
// Supervising one worker process: feeding its messages to a handler, noticing SIGINT/SIGTERM sent
// to tfbench, and reaping the worker however it ends.

#include "run/spawn.hpp"
#include "tfbench/harness/json.hpp"

#include <functional>

namespace tfbench::harness::impl {

/// Installs SIGINT/SIGTERM/SIGHUP handlers that only record the signal (self-pipe), and ignores
/// SIGPIPE; restores the previous dispositions on destruction.
class SignalWatch {
 public:
  SignalWatch();
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;
  /// The signal received so far (0: none).
  int received() const;
  int fd() const;  // readable once a signal arrived
};

struct ProcessEnd {
  int wait_status = 0;
  int interrupt_signal = 0;  // the signal that interrupted the run (0: none)
};

/// Reads the worker's messages until it closes its pipe, passing each parsed line to `on_message`
/// and calling `on_tick` about every `tick_ms`. On an interrupt it terminates the worker (SIGTERM,
/// then SIGKILL after 2 s). Always reaps the worker.
ProcessEnd supervise(const WorkerProcess& process, const SignalWatch& signals,
                     const std::function<void(const Json&)>& on_message, const std::function<void()>& on_tick,
                     int tick_ms);

}  // namespace tfbench::harness::impl
