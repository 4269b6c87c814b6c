#include "tfbench/harness/results.hpp"

namespace tfbench::harness {
namespace {

struct StatusName {
  RowStatus status;
  const char* text;
};

// The one mapping between the statuses and their text in the file and the protocol.
constexpr StatusName kStatusNames[] = {
    {RowStatus::Ok, "ok"},
    {RowStatus::Skipped, "skipped"},
    {RowStatus::CheckFailed, "check_failed"},
    {RowStatus::Error, "error"},
    {RowStatus::Crashed, "crashed"},
    {RowStatus::TimedOut, "timed_out"},
    {RowStatus::Interrupted, "interrupted"},
};

}  // namespace

const char* name(RowStatus status) {
  for (const auto& s : kStatusNames) {
    if (s.status == status) return s.text;
  }
  return "";
}

std::optional<RowStatus> parse_row_status(std::string_view text) {
  for (const auto& s : kStatusNames) {
    if (text == s.text) return s.status;
  }
  return std::nullopt;
}

bool is_failure(RowStatus status) {
  return status == RowStatus::CheckFailed || status == RowStatus::Error || status == RowStatus::Crashed ||
         status == RowStatus::TimedOut;
}

}  // namespace tfbench::harness
