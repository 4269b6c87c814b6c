#include "run/supervisor.hpp"

#include "run/protocol.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <string>

namespace tfbench::harness::impl {
namespace {

int g_pipe[2] = {-1, -1};
volatile sig_atomic_t g_signal = 0;
struct sigaction g_previous[3];
constexpr int kWatched[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void record_signal(int signal) {
  if (g_signal == 0) g_signal = signal;
  const char byte = static_cast<char>(signal);
  const int saved = errno;
  if (write(g_pipe[1], &byte, 1) < 0) {
  }
  errno = saved;
}

}  // namespace

SignalWatch::SignalWatch() {
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe for signal handling failed");
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR and the loop looks at the pipe
  for (int i = 0; i < 3; ++i) sigaction(kWatched[i], &action, &g_previous[i]);
  signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe must not kill tfbench
}

SignalWatch::~SignalWatch() {
  for (int i = 0; i < 3; ++i) sigaction(kWatched[i], &g_previous[i], nullptr);
  close(g_pipe[0]);
  close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int SignalWatch::received() const {
  return g_signal;
}

int SignalWatch::fd() const {
  return g_pipe[0];
}

ProcessEnd supervise(const WorkerProcess& process, const SignalWatch& signals,
                     const std::function<void(const Json&)>& on_message, const std::function<void()>& on_tick,
                     int tick_ms) {
  ProcessEnd end;
  std::string buffer;
  bool open = true;
  auto take_lines = [&] {
    std::size_t start = 0;
    for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string line = buffer.substr(start, nl - start);
      if (line.empty()) continue;
      try {
        on_message(parse_message(line));
      } catch (const Json::exception& e) {  // not JSON, or a member missing or of the wrong type
        std::cerr << "tfbench: ignoring a malformed worker message (" << e.what()
                  << "): " << line.substr(0, 200) << "\n";
      }
    }
    buffer.erase(0, start);
  };
  // A handler that throws (the result file cannot be written) ends the run: the worker goes too.
  struct StopOnThrow {
    const WorkerProcess& process;
    bool done = false;
    ~StopOnThrow() {
      if (done) return;
      kill(process.pid, SIGKILL);
      close(process.message_fd);
      int status = 0;
      while (waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  } stop_on_throw{process};
  bool terminated = false;
  auto kill_deadline = std::chrono::steady_clock::now();
  while (open) {
    if (signals.received() != 0 && !terminated) {
      // Interrupted: stop the worker, politely first, but keep reading so that every case it
      // finished before the signal is still recorded.
      kill(process.pid, SIGTERM);
      terminated = true;
      kill_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    }
    if (terminated && std::chrono::steady_clock::now() > kill_deadline) kill(process.pid, SIGKILL);
    pollfd fds[2] = {{process.message_fd, POLLIN, 0}, {signals.fd(), POLLIN, 0}};
    const int n = poll(fds, terminated ? 1 : 2, terminated ? 50 : tick_ms);
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      char chunk[65536];
      for (;;) {
        const ssize_t got = read(process.message_fd, chunk, sizeof(chunk));
        if (got > 0) {
          buffer.append(chunk, static_cast<std::size_t>(got));
          continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got == 0) open = false;  // the worker closed its end: it exited (or is exiting)
        break;                       // EAGAIN: all read for now
      }
      take_lines();
    }
    on_tick();
  }
  stop_on_throw.done = true;
  close(process.message_fd);
  while (waitpid(process.pid, &end.wait_status, 0) < 0 && errno == EINTR) {
  }
  // A Ctrl-C at the terminal reaches the worker and tfbench together; if the worker died of it,
  // give our own handler a moment to record it so that this reads as an interrupt, not a crash.
  if (WIFSIGNALED(end.wait_status) && signals.received() == 0) {
    const int s = WTERMSIG(end.wait_status);
    if (s == SIGINT || s == SIGTERM || s == SIGHUP) {
      pollfd fd = {signals.fd(), POLLIN, 0};
      poll(&fd, 1, 300);
    }
  }
  end.interrupt_signal = signals.received();
  return end;
}

}  // namespace tfbench::harness::impl
