#include "run/progress.hpp"

#include "tfbench/workloads/host_load.hpp"

#include "tfbench/harness/plan.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tfbench::harness::impl {
namespace {
constexpr double kFirstHeartbeatSeconds = 30.0;
// The most the time left is scaled up by the finished part's pace (remaining()).
constexpr double kMaxSlowdown = 4.0;

/// A number of a row's metrics text as the worker writes it (dump_json: `"key":value`, no spaces);
/// 0 when absent or null. Not a JSON parse: nlohmann's parser instantiated here draws GCC 12's
/// false -Warray-bounds warnings, and this text has one writer.
double metric_or_zero(const std::string& metrics, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const auto at = metrics.find(quoted);
  if (at == std::string::npos) return 0.0;
  const char* begin = metrics.c_str() + at + quoted.size();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  return end != begin && std::isfinite(value) ? value : 0.0;
}

/// ", on a busy host (other work 23% of the worker's CPUs, steal 1%)" for a row whose samples ran
/// while other work or the hypervisor took more than kBusyHostShare of the CPUs; else empty.
std::string busy_host_note(const ResultRow& row) {
  const double other = metric_or_zero(row.metrics, "host.other_cpu");
  const double steal = metric_or_zero(row.metrics, "host.steal");
  if (!(other > workloads::kBusyHostShare || steal > workloads::kBusyHostShare)) return "";
  return ", on a busy host (other work " + format_percent(other) + " of the worker's CPUs, steal " +
         format_percent(steal) + ")";
}
}  // namespace

Progress::Progress(std::ostream& out, std::ostream* status, std::size_t total_rows, double estimate_s,
                   double plain_interval_s)
    : out_(out),
      status_(status),
      total_rows_(total_rows),
      estimate_s_(estimate_s),
      plain_interval_s_(plain_interval_s),
      next_plain_s_(plain_interval_s),
      start_(std::chrono::steady_clock::now()),
      activity_since_(start_),
      next_heartbeat_s_(kFirstHeartbeatSeconds) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double Progress::remaining() const {
  if (done_rows_ >= total_rows_) return 0.0;
  const double left = std::max(0.0, estimate_s_ - done_weight_);
  if (done_weight_ <= 0.0) return std::max(0.0, estimate_s_ - elapsed());
  // The finished part's pace predicts the rest, up to kMaxSlowdown: a case killed at its time limit
  // (60 s for a case estimated at 1 s) says nothing about the cases after it, and the unclamped
  // ratio made the ETA hours.
  const double slowdown = std::min(elapsed() / done_weight_, kMaxSlowdown);
  return slowdown * left;
}

void Progress::clear_status() {
  if (status_ && status_shown_) {
    *status_ << "\r\033[K";
    status_->flush();
    status_shown_ = false;
  }
}

void Progress::note(const std::string& text) {
  clear_status();
  out_ << text << '\n';
  out_.flush();
  tick(true);
}

void Progress::activity(const std::string& text) {
  activity_ = text;
  activity_since_ = std::chrono::steady_clock::now();
  next_heartbeat_s_ = kFirstHeartbeatSeconds;
  tick();
}

void Progress::worker_ready(double weight) {
  done_weight_ += weight;
}

void Progress::print_plain_progress() {
  const double t = elapsed();
  if (t < next_plain_s_ || done_rows_ >= total_rows_) return;
  next_plain_s_ = t + plain_interval_s_;
  out_ << "progress: " << done_rows_ << " of " << total_rows_ << " rows in " << format_duration(t)
       << ", about " << format_duration(remaining()) << " left\n";
}

void Progress::done(const ResultRow& row, double weight) {
  ++done_rows_;
  done_weight_ += weight;
  activity_since_ = std::chrono::steady_clock::now();
  next_heartbeat_s_ = kFirstHeartbeatSeconds;
  clear_status();
  std::string line = "[" + std::to_string(done_rows_) + "/" + std::to_string(total_rows_) + "] " +
                     row.case_id + " threads=" + std::to_string(row.threads) + " " + row.exec_space + ": ";
  if (row.status == RowStatus::Ok) {
    line += "median " + format_seconds(row.median_s) + ", " + format_rate(headline_rate(row));
    if (!row.fastest_peer.empty() && std::isfinite(row.speedup_vs_fastest_peer)) {
      line += row.fastest_peer == row.variant
                  ? ", fastest peer"
                  : ", " + format_speedup(row.speedup_vs_fastest_peer) + " vs " + row.fastest_peer;
    }
    line += busy_host_note(row) + ", ok";
  } else {
    line += name(row.status) + (row.error.empty() ? "" : ": " + row.error);
  }
  out_ << line << '\n';
  if (!status_) print_plain_progress();
  out_.flush();
  tick(true);
}

void Progress::tick(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!status_) {
    // Without a status line a hung case would print nothing at all until its time limit.
    const double quiet = std::chrono::duration<double>(now - activity_since_).count();
    if (!activity_.empty() && quiet >= next_heartbeat_s_) {
      out_ << "still running after " << format_seconds(quiet) << ": " << activity_ << '\n';
      out_.flush();
      next_heartbeat_s_ *= 2;
    }
    return;
  }
  if (!force && status_shown_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const std::string eta =
      done_rows_ >= total_rows_ ? "finishing" : "about " + format_duration(remaining()) + " left";
  const std::size_t current = std::min(done_rows_ + 1, total_rows_);
  std::string status = "case " + std::to_string(current) + " of " + std::to_string(total_rows_) +
                       ", elapsed " + format_duration(elapsed()) + ", " + eta +
                       (activity_.empty() ? "" : ": " + activity_);
  if (status.size() > 160) status = status.substr(0, 157) + "...";
  *status_ << "\r\033[K" << status;
  status_->flush();
  status_shown_ = true;
}

void Progress::finish() {
  clear_status();
  out_.flush();
}

}  // namespace tfbench::harness::impl
