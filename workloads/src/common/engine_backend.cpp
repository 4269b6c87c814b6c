#include "common/engine_backend.hpp"

namespace tfbench::workloads {

ExecSpaceKind engine_space(const RunContext& ctx) {
  return ctx.threads == 1 && is_enabled(ExecSpaceKind::Serial) ? ExecSpaceKind::Serial : ctx.space;
}

void throw_entry_error(const SessionEntryError& error, const std::string& where) {
  throw WorkloadError(where + ": session entry failed (" + name(error.kind) + "): " + error.message);
}

ResourceCounts pool_resources(const CpuBackend& backend, const std::function<void()>& iteration) {
  const PoolStats before = backend.host_pool()->stats();
  iteration();
  const PoolStats after = backend.host_pool()->stats();
  ResourceCounts r;
  r.allocations = static_cast<double>(after.misses - before.misses);
  r.pool_hits = static_cast<double>(after.hits - before.hits);
  r.bytes_retained = static_cast<double>(after.bytes_cached);
  return r;
}

CpuBackend make_backend(const RunContext& ctx) {
  CpuBackendConfig config;
  config.space = ctx.space;
  config.threads = ctx.threads;
  auto backend = CpuBackend::create(config);
  if (!backend) {
    throw WorkloadError(std::string("engine backend on ") + name(ctx.space) + " with " +
                        std::to_string(ctx.threads) + " threads: " + name(backend.error().kind) + ": " +
                        backend.error().message);
  }
  return std::move(backend).value();
}

}  // namespace tfbench::workloads
