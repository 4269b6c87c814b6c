// Process-wide transfer counters: relaxed atomics, read as snapshots by the workloads.
#include <atomic>

#include "tfbench/engine/storage/transfer.hpp"

namespace tfbench {
namespace {
struct Counters {
  std::atomic<std::uint64_t> uploads{0}, downloads{0}, bytes_uploaded{0}, bytes_downloaded{0};
  std::atomic<std::uint64_t> zero_copy_maps{0}, staged_maps{0}, staged_write_backs{0}, bytes_staged{0};
};
Counters& counters() {
  static Counters c;
  return c;
}
constexpr auto relaxed = std::memory_order_relaxed;
}  // namespace

TransferStats transfer_stats() noexcept {
  const Counters& c = counters();
  TransferStats s;
  s.uploads = c.uploads.load(relaxed);
  s.downloads = c.downloads.load(relaxed);
  s.bytes_uploaded = c.bytes_uploaded.load(relaxed);
  s.bytes_downloaded = c.bytes_downloaded.load(relaxed);
  s.zero_copy_maps = c.zero_copy_maps.load(relaxed);
  s.staged_maps = c.staged_maps.load(relaxed);
  s.staged_write_backs = c.staged_write_backs.load(relaxed);
  s.bytes_staged = c.bytes_staged.load(relaxed);
  return s;
}

TransferStats operator-(const TransferStats& a, const TransferStats& b) noexcept {
  TransferStats d;
  d.uploads = a.uploads - b.uploads;
  d.downloads = a.downloads - b.downloads;
  d.bytes_uploaded = a.bytes_uploaded - b.bytes_uploaded;
  d.bytes_downloaded = a.bytes_downloaded - b.bytes_downloaded;
  d.zero_copy_maps = a.zero_copy_maps - b.zero_copy_maps;
  d.staged_maps = a.staged_maps - b.staged_maps;
  d.staged_write_backs = a.staged_write_backs - b.staged_write_backs;
  d.bytes_staged = a.bytes_staged - b.bytes_staged;
  return d;
}

namespace impl {
void record_upload(std::uint64_t bytes) noexcept {
  counters().uploads.fetch_add(1, relaxed);
  counters().bytes_uploaded.fetch_add(bytes, relaxed);
}
void record_download(std::uint64_t bytes) noexcept {
  counters().downloads.fetch_add(1, relaxed);
  counters().bytes_downloaded.fetch_add(bytes, relaxed);
}
void record_map(bool zero_copy, std::uint64_t bytes_staged) noexcept {
  (zero_copy ? counters().zero_copy_maps : counters().staged_maps).fetch_add(1, relaxed);
  counters().bytes_staged.fetch_add(bytes_staged, relaxed);
}
void record_write_back(std::uint64_t bytes) noexcept {
  counters().staged_write_backs.fetch_add(1, relaxed);
  counters().bytes_staged.fetch_add(bytes, relaxed);
}
}  // namespace impl

}  // namespace tfbench
