#pragma once
// What `tfbench run` prints while it runs: one line per finished row on `out`, and the estimated
// time left. On a terminal (`status` given: stderr is one) a status line there rewrites itself:
// case i of N, elapsed, time left, what runs now. Elsewhere (a CI log, a Slurm output file) nothing
// is rewritten: a plain `progress:` line every 30 s of finished rows, and a "still running" line when
// nothing has happened for 30 s, 60 s, 120 s, ...

#include "tfbench/harness/results.hpp"

#include <chrono>
#include <ostream>
#include <string>

namespace tfbench::harness::impl {

class Progress {
 public:
  /// `estimate_s`: the run's estimated seconds (estimate_run()); the weights passed to
  /// worker_ready() and done() are the shares of it that are then behind us.
  Progress(std::ostream& out, std::ostream* status, std::size_t total_rows, double estimate_s,
           double plain_interval_s = 30.0);
  /// Prints a line about the run (a worker starting, a note), above the status line.
  void note(const std::string& text);
  /// What is running now, shown on the status line.
  void activity(const std::string& text);
  /// A worker finished starting (and measuring its ceilings): its share of the estimate.
  void worker_ready(double weight);
  /// A finished row and its share of the estimate.
  void done(const ResultRow& row, double weight);
  /// Redraws the status line (terminal only, at most every 100 ms unless forced); call periodically.
  void tick(bool force = false);
  /// Removes the status line before the summary.
  void finish();
  double elapsed() const;
  /// Seconds left: the part of the estimate not done yet, scaled by how long the part done took
  /// against its estimate (before anything is done, the estimate minus the time elapsed).
  double remaining() const;

 private:
  void clear_status();
  void print_plain_progress();
  std::ostream& out_;
  std::ostream* status_;  // the terminal for the status line, or nullptr
  std::size_t total_rows_, done_rows_ = 0;
  double estimate_s_, done_weight_ = 0.0;
  double plain_interval_s_, next_plain_s_;
  std::chrono::steady_clock::time_point start_;
  std::string activity_;
  std::chrono::steady_clock::time_point activity_since_;
  double next_heartbeat_s_;
  bool status_shown_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace tfbench::harness::impl
