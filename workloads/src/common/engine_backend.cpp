#include "common/engine_backend.hpp"
#include "tfbench/workloads/tuning.hpp"

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

namespace tfbench::workloads {

ExecSpaceKind engine_space(const RunContext& ctx) {
  return context_space(ctx.space, ctx.threads);
}

bool on_device(const RunContext& ctx) {
  return !is_host_space(ctx.space);
}

bool build_has_cublas() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  return true;
#else
  return false;
#endif
}

DeviceBackend make_device_backend() {
  auto backend = DeviceBackend::create();
  if (!backend) {
    throw WorkloadError(std::string("engine device backend on ") + name(default_device_space()) + ": " +
                        name(backend.error().kind) + ": " + backend.error().message);
  }
  return std::move(backend).value();
}

void throw_entry_error(const SessionEntryError& error, const std::string& where) {
  throw WorkloadError(where + ": session entry failed (" + name(error.kind) + "): " + error.message);
}

namespace {
template <class Pool>
ResourceCounts pool_traffic(const Pool& pool, const std::function<void()>& iteration) {
  const PoolStats before = pool.stats();
  iteration();
  const PoolStats after = pool.stats();
  ResourceCounts r;
  r.allocations = static_cast<double>(after.misses - before.misses);
  r.pool_hits = static_cast<double>(after.hits - before.hits);
  r.bytes_retained = static_cast<double>(after.bytes_cached);
  return r;
}
}  // namespace

ResourceCounts pool_resources(const CpuBackend& backend, const std::function<void()>& iteration) {
  return pool_traffic(*backend.host_pool(), iteration);
}
ResourceCounts pool_resources(const DeviceBackend& backend, const std::function<void()>& iteration) {
  return pool_traffic(*backend.device_pool(), iteration);
}

CpuBackend make_backend(const RunContext& ctx) {
  CpuBackendConfig config;
  config.space = ctx.space;
  config.threads = ctx.threads;
  config.batch_policy.tuning = installed_auto_tuning();  // null: Auto's built-in preference
  auto backend = CpuBackend::create(config);
  if (!backend) {
    throw WorkloadError(std::string("engine backend on ") + name(ctx.space) + " with " +
                        std::to_string(ctx.threads) + " threads: " + name(backend.error().kind) + ": " +
                        backend.error().message);
  }
  return std::move(backend).value();
}

}  // namespace tfbench::workloads
