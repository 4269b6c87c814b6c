#pragma once
// What `tfbench run` prints while it runs: one line per finished row, and on a terminal a live
// status line (case i of N, elapsed, estimated remaining, what is running now); elsewhere (a CI log)
// a "still running" line when nothing has happened for 30 s, 60 s, 120 s, ...

#include "tfbench/harness/results.hpp"

#include <chrono>
#include <ostream>
#include <string>

namespace tfbench::harness::impl {

class Progress {
 public:
  /// `total_weight`: the estimated cost of all rows (same unit as the weights passed to done()).
  Progress(std::ostream& out, bool interactive, std::size_t total_rows, double total_weight);
  /// Prints a line about the run (a worker starting, a note), above the status line.
  void note(const std::string& text);
  /// What is running now, shown on the status line.
  void activity(const std::string& text);
  /// A finished row and its share of the estimated cost.
  void done(const ResultRow& row, double weight);
  /// Redraws the status line (terminal only, at most every 100 ms unless forced); call periodically.
  void tick(bool force = false);
  /// Removes the status line before the summary.
  void finish();
  double elapsed() const;

 private:
  void clear_status();
  std::ostream& out_;
  bool interactive_;
  std::size_t total_rows_, done_rows_ = 0;
  double total_weight_, done_weight_ = 0.0;
  std::chrono::steady_clock::time_point start_;
  std::string activity_;
  std::chrono::steady_clock::time_point activity_since_;
  double next_heartbeat_s_;
  bool status_shown_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace tfbench::harness::impl
