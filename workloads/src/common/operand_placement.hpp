#pragma once
// Where an engine variant's operands live: Host tensors of a CpuBackend session (host cases), or
// Device tensors of a DeviceBackend session (cases on a device space), uploaded once when the
// instance is made and downloaded only by its check, never inside a timed run.

#include "common/engine_backend.hpp"

#include "tfbench/engine/ops/transfer.hpp"
#include "tfbench/engine/storage/storage.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tfbench::workloads {

template <class T>
struct HostPlacement {
  using Backend = CpuBackend;
  using Owner = Tensor<T, DynRank, Host>;
  static Backend backend(const RunContext& ctx) { return make_backend(ctx); }
  static Owner place(Session&, Tensor<T, DynRank, Host> host) { return host; }
  static Owner place(Backend&, Tensor<T, DynRank, Host> host) { return host; }
  static std::vector<T> to_host(Backend&, const Owner& t) { return {t.data(), t.data() + t.numel()}; }
};

template <class T>
struct DevicePlacement {
  using Backend = DeviceBackend;
  using Owner = Tensor<T, DynRank, Device>;
  static Backend backend(const RunContext&) { return make_device_backend(); }
  static Owner place(Session& s, const Tensor<T, DynRank, Host>& host) { return ops::upload(s, host); }
  static Owner place(Backend& backend, const Tensor<T, DynRank, Host>& host) {
    std::optional<Owner> out;
    auto ok = backend.with_session([&](Session& s) { out.emplace(place(s, host)); });
    if (!ok) throw_entry_error(ok.error(), "operand upload");
    return std::move(*out);
  }
  static std::vector<T> to_host(Backend& backend, const Owner& t) {
    std::optional<Tensor<T, DynRank, Host>> host;
    auto ok = backend.with_session([&](Session& s) { host.emplace(ops::download(s, t)); });
    if (!ok) throw_entry_error(ok.error(), "result download");
    return {host->data(), host->data() + host->numel()};
  }
};

}  // namespace tfbench::workloads
