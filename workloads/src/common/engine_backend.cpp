#include "common/engine_backend.hpp"

namespace tfbench::workloads {

ExecSpaceKind engine_space(const RunContext& ctx) {
  return ctx.threads == 1 && is_enabled(ExecSpaceKind::Serial) ? ExecSpaceKind::Serial : ctx.space;
}

void throw_entry_error(const SessionEntryError& error, const std::string& where) {
  throw WorkloadError(where + ": session entry failed (" + name(error.kind) + "): " + error.message);
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
