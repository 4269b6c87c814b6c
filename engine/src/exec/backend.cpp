// CpuBackend and DeviceBackend: construction, native tokens and their visitors, admitted mutation.

#include "tfbench/engine/exec/backend.hpp"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <utility>

#include "backend_state.hpp"
#include "tfbench/engine/exec/phase.hpp"
#include "token_ring.hpp"

namespace tfbench {

namespace impl {
struct BackendAccess {
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
};

namespace {
BackendError backend_error(BackendErrorKind kind, std::string message) {
  return BackendError{kind, std::move(message)};
}

// The Kokkos Serial space keeps one process-global scratch that its reductions resize on first use.
// Sizing it once here (on the constructing thread) means concurrent one-thread sessions and lanes only
// ever read it afterwards. TeamPolicy kernels on Serial still write it: lanes use RangePolicy kernels.
void warm_serial_scratch() {
#if defined(KOKKOS_ENABLE_SERIAL)
  static std::once_flag once;
  std::call_once(once, [] {
    double sum = 0;
    Kokkos::parallel_reduce(
        "tfbench::engine::exec::warm_serial_scratch", Kokkos::RangePolicy<Kokkos::Serial>(0, 1),
        [](int, double& acc) { acc += 1; }, sum);
  });
#endif
}

// Runs f(state) with the backend admitted like a session, so no session sees a half-made change.
template <class F>
Result<void, SessionEntryError> admitted(BackendState* state, F&& f) {
  return run_session(state, [&](Session&) { f(*state); });
}
}  // namespace
}  // namespace impl

// ---- native tokens: constructed only here, inside the backend classes (friends of the token).

namespace {
const char cpu_marker = 0;     // identifies CPU tokens; its address is private to this file
const char device_marker = 0;  // identifies device tokens
}  // namespace

struct CpuBackend::Internal {
  static void token_scope(impl::NativeServices& services, impl::FunctionRef<void(NativeSessionRef*)> body) {
    const impl::ScopedToken token(&cpu_marker, &services);
    body(token.get());
  }
  struct HeldCpuRoot;
  static std::unique_ptr<impl::HeldRoot> open_held(impl::BackendState* state, SessionEntryError& error);
};

struct CpuBackend::Internal::HeldCpuRoot final : impl::HeldRoot {
  impl::ScopedToken token_;
  HeldCpuRoot() : token_(&cpu_marker, &services) {}
  NativeSessionRef* token() override { return token_.get(); }
};

struct DeviceBackend::Internal {
  static void token_scope(impl::NativeServices& services, impl::FunctionRef<void(NativeSessionRef*)> body) {
    const impl::ScopedToken token(&device_marker, &services);
    body(token.get());
  }
};

namespace {
// Whether `token` may be read at all: a live slot of this thread's token ring (never a dead object).
std::optional<NativeAccessError> unreadable(const NativeSessionRef* token) {
  if (!token) return NativeAccessError::NoToken;
  switch (impl::TokenRing::check(token)) {
    case impl::TokenRing::Liveness::LiveHere:
      return std::nullopt;
    case impl::TokenRing::Liveness::LiveElsewhere:
      return NativeAccessError::WrongThread;
    case impl::TokenRing::Liveness::Expired:
      break;
  }
  return NativeAccessError::Expired;
}
}  // namespace

// The visitors check liveness, the exact marker and the owning thread, then perform the one audited
// cast.
Result<CpuNative, NativeAccessError> CpuBackend::recover(NativeSessionRef* token) {
  if (auto error = unreadable(token)) return unexpected(*error);
  if (token->marker_ != &cpu_marker) return unexpected(NativeAccessError::ForeignBackend);
  if (token->owner_ != std::this_thread::get_id()) return unexpected(NativeAccessError::WrongThread);
  return CpuNative(token->native_);
}

Result<DeviceNative, NativeAccessError> DeviceBackend::recover(NativeSessionRef* token) {
  if (auto error = unreadable(token)) return unexpected(*error);
  if (token->marker_ != &device_marker) return unexpected(NativeAccessError::ForeignBackend);
  if (token->owner_ != std::this_thread::get_id()) return unexpected(NativeAccessError::WrongThread);
  return DeviceNative(token->native_);
}

namespace {
const impl::NativeServices& services_of(void* p) {
  return *static_cast<const impl::NativeServices*>(p);
}
}  // namespace

const ExecutionContext& CpuNative::context() const {
  return services_of(services_).core->context;
}
std::uint64_t CpuNative::backend_id() const {
  return services_of(services_).backend->id;
}
const CpuSet& CpuNative::cpus() const {
  return services_of(services_).backend->claim.cpus;
}
Session& CpuNative::session() const {
  return *services_of(services_).session;
}
int CpuNative::openmp_pool_size() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return concurrency(ExecSpaceKind::OpenMP);
#else
  return 0;
#endif
}

const ExecutionContext& DeviceNative::context() const {
  return services_of(services_).core->context;
}
std::uint64_t DeviceNative::backend_id() const {
  return services_of(services_).backend->id;
}
Session& DeviceNative::session() const {
  return *services_of(services_).session;
}

// ---- CpuBackend

Result<CpuBackend, BackendError> CpuBackend::create(const CpuBackendConfig& config) {
  using impl::backend_error;
  if (!Kokkos::is_initialized()) {
    return unexpected(
        backend_error(BackendErrorKind::NotInitialized, "CpuBackend: Kokkos is not initialized"));
  }
  if (config.space != ExecSpaceKind::Serial && config.space != ExecSpaceKind::OpenMP) {
    return unexpected(backend_error(BackendErrorKind::InvalidConfig,
                                    std::string("CpuBackend: space '") + name(config.space) +
                                        "' is not a host space (use DeviceBackend)"));
  }
  if (!is_enabled(config.space)) {
    return unexpected(backend_error(
        BackendErrorKind::SpaceNotEnabled,
        std::string("CpuBackend: space '") + name(config.space) + "' is not enabled in this Kokkos build"));
  }
  const int pool = concurrency(config.space);
  int threads = config.threads == 0 ? pool : config.threads;
  if (threads < 1 || threads > pool) {
    return unexpected(backend_error(BackendErrorKind::InvalidConfig,
                                    "CpuBackend: thread budget " + std::to_string(config.threads) +
                                        " outside 1.." + std::to_string(pool) + " for space '" +
                                        name(config.space) + "'"));
  }
  if (config.space == ExecSpaceKind::OpenMP && threads != 1 && threads != pool) {
    return unexpected(backend_error(BackendErrorKind::InvalidConfig,
                                    "CpuBackend: OpenMP thread budget " + std::to_string(threads) +
                                        " must be 1 or the pool size " + std::to_string(pool) +
                                        ": Kokkos 3.4 runs every OpenMP kernel on the whole pool"));
  }
  if (config.cpus && config.cpus->empty()) {
    return unexpected(backend_error(BackendErrorKind::InvalidConfig, "CpuBackend: empty CPU set"));
  }
  if (config.plan_cache_capacity > (std::size_t(1) << 30)) {
    return unexpected(
        backend_error(BackendErrorKind::InvalidConfig, "CpuBackend: plan cache capacity too large"));
  }

  auto state = std::make_shared<impl::BackendState>();
  state->flavor = impl::BackendState::Flavor::Cpu;
  state->id = impl::BackendAccess::next_id();
  state->context.threads = threads;
  state->context.memory = MemoryKind::Host;
  state->context.space = config.space;
#if defined(KOKKOS_ENABLE_SERIAL)
  if (threads == 1) state->context.space = ExecSpaceKind::Serial;  // no OpenMP region for one thread
#endif
  state->forks = state->context.space == ExecSpaceKind::OpenMP;
  state->claim.cpus = config.cpus ? *config.cpus : CpuSet::allowed();
  state->claim.openmp_pool = state->forks;
  state->admission = config.admission;
  state->default_policy = config.batch_policy;
  state->providers = default_provider_set(state->context.space);
  state->plan_cache.configure(config.plan_cache_capacity);
  state->host_pool = HostPool::create(config.pool);
  state->device_pool = DevicePool::create(config.pool);
  state->token_scope = &Internal::token_scope;
  impl::warm_serial_scratch();
  return CpuBackend(std::move(state));
}

CpuBackend CpuBackend::serial() {
  auto made = create(CpuBackendConfig{});
  if (!made) throw std::invalid_argument(made.error().message);
  return std::move(made).value();
}

CpuBackend CpuBackend::openmp(int threads) {
  CpuBackendConfig config;
  config.space = ExecSpaceKind::OpenMP;
  config.threads = threads;
  auto made = create(config);
  if (!made) throw std::invalid_argument(made.error().message);
  return std::move(made).value();
}

CpuBackend::CpuBackend(std::shared_ptr<impl::BackendState> state) : state_(std::move(state)) {}
CpuBackend::CpuBackend(CpuBackend&&) noexcept = default;
CpuBackend& CpuBackend::operator=(CpuBackend&&) noexcept = default;
CpuBackend::~CpuBackend() = default;

HeldSession CpuBackend::hold() {
  return HeldSession(state_);
}

// Same admission as with_session, but the permit and the root session outlive this call: the root
// becomes this thread's active session until the HeldSession is destroyed.
std::unique_ptr<impl::HeldRoot> CpuBackend::Internal::open_held(impl::BackendState* state,
                                                                SessionEntryError& error) {
  if (!state) {
    error = impl::entry_error(SessionEntryErrorKind::Executor, "hold: moved-from backend");
    return nullptr;
  }
  if (auto err = impl::check_entry(*state)) {
    error = std::move(*err);
    return nullptr;
  }
  auto root = std::make_unique<HeldCpuRoot>();
  root->state = state;
  root->owner = std::this_thread::get_id();
  if (auto err = impl::acquire_permit(*state, root->node)) {
    error = std::move(*err);
    return nullptr;
  }
  if (state->poisoned.load(std::memory_order_acquire)) {
    impl::Arbiter::instance().release(root->node);
    error = impl::entry_error(SessionEntryErrorKind::ResourcePoisoned,
                              "hold: backend resources are poisoned: " + state->reason());
    return nullptr;
  }
  root->core = impl::root_core(*state);
  root->services = impl::NativeServices{&root->core, state, nullptr};
  root->session.emplace(root->core, root->token());
  root->services.session = &*root->session;
  impl::thread_state().active = &root->core;
  return root;
}

HeldSession::HeldSession(std::shared_ptr<impl::BackendState> state) : state_(std::move(state)) {
  root_ = CpuBackend::Internal::open_held(state_.get(), error_);
}

HeldSession::~HeldSession() {
  if (!root_) return;
  if (std::this_thread::get_id() != root_->owner) {
    std::fprintf(stderr, "tfbench: a HeldSession was destroyed off the thread that holds it\n");
    std::abort();
  }
  impl::thread_state().active = nullptr;
  impl::Arbiter::instance().release(root_->node);
}

namespace impl {

std::optional<PhaseError> check_phase_entry(HeldRoot& root) {
  if (root.core.context.threads > 1 && is_target_pool_worker()) {
    return PhaseError{PhaseErrorKind::WorkerOfTargetPool,
                      "phase: the calling thread is a worker of the pool the lanes would run on; a phase "
                      "must be driven from outside that pool"};
  }
  if (std::this_thread::get_id() != root.owner) {
    return PhaseError{PhaseErrorKind::WrongThread, "phase: called off the thread that holds the session"};
  }
  if (root.core.parked) {
    return PhaseError{PhaseErrorKind::PhaseActive, "phase: a phase is already running on this held session"};
  }
  return std::nullopt;
}

void set_phase_active(HeldRoot& root, bool active) {
  root.core.parked = active;  // a phase runs: the root's numerical execution waits for it
}

std::optional<SessionEntryError> check_held_entry(HeldRoot& root) {
  if (std::this_thread::get_id() != root.owner) {
    return entry_error(SessionEntryErrorKind::IncompatibleContext,
                       "held session: used off the thread that holds it");
  }
  if (root.core.parked || thread_state().active != &root.core) {
    return entry_error(SessionEntryErrorKind::Reentered,
                       "held session: a phase (or a lane of one) is running on this thread");
  }
  if (!Kokkos::is_initialized()) {
    return entry_error(SessionEntryErrorKind::Executor, "held session: Kokkos is no longer initialized");
  }
  if (root.state->poisoned.load(std::memory_order_acquire)) {
    return entry_error(SessionEntryErrorKind::ResourcePoisoned,
                       "held session: backend resources are poisoned: " + root.state->reason());
  }
  return std::nullopt;
}

Session& held_session(HeldRoot& root) {
  return *root.session;
}

std::size_t held_lanes(const HeldRoot& root) {
  return static_cast<std::size_t>(root.core.context.threads);
}

}  // namespace impl

const ExecutionContext& CpuBackend::context() const {
  return state_->context;
}
std::uint64_t CpuBackend::id() const {
  return state_->id;
}
const CpuSet& CpuBackend::cpus() const {
  return state_->claim.cpus;
}
Admission CpuBackend::admission() const {
  return state_->admission;
}
const BatchPolicy& CpuBackend::batch_policy() const {
  return state_->default_policy;
}
Result<void, SessionEntryError> CpuBackend::set_batch_policy(const BatchPolicy& policy) {
  return impl::admitted(state_.get(), [&](impl::BackendState& s) { s.default_policy = policy; });
}
Result<void, SessionEntryError> CpuBackend::set_providers(ProviderSlot slot,
                                                          std::vector<const ProviderDecl*> candidates) {
  return impl::admitted(state_.get(),
                        [&](impl::BackendState& s) { s.providers.set(slot, std::move(candidates)); });
}
std::uint64_t CpuBackend::provider_generation() const {
  return state_->providers.generation();
}
PlanCache& CpuBackend::plan_cache() {
  return state_->plan_cache;
}
const std::shared_ptr<HostPool>& CpuBackend::host_pool() const {
  return state_->host_pool;
}
const std::shared_ptr<DevicePool>& CpuBackend::device_pool() const {
  return state_->device_pool;
}
LeaseStats CpuBackend::lease_stats() const {
  return state_->lease_counters->snapshot();
}
bool CpuBackend::poisoned() const {
  return state_->poisoned.load(std::memory_order_acquire);
}
std::string CpuBackend::poison_reason() const {
  return state_->reason();
}

namespace impl {
namespace {
// reset() must get past the poison check of ordinary entry: it admits itself with the permit only.
Result<void, SessionEntryError> reset_state(BackendState* state) {
  if (thread_state().active) {
    return unexpected(entry_error(SessionEntryErrorKind::Reentered, "reset: this thread holds a session"));
  }
  PermitNode node;
  if (auto err = acquire_permit(*state, node)) return unexpected(std::move(*err));
  state->plan_cache.clear();
  state->host_pool->clear();
  state->device_pool->clear();
  {
    std::lock_guard<std::mutex> lock(state->poison_mutex);
    state->poison_reason.clear();
  }
  state->poisoned.store(false, std::memory_order_release);
  Arbiter::instance().release(node);
  return {};
}
}  // namespace
}  // namespace impl

Result<void, SessionEntryError> CpuBackend::reset() {
  return impl::reset_state(state_.get());
}

// ---- DeviceBackend

Result<DeviceBackend, BackendError> DeviceBackend::create(const DeviceBackendConfig& config) {
  using impl::backend_error;
  if (!Kokkos::is_initialized()) {
    return unexpected(
        backend_error(BackendErrorKind::NotInitialized, "DeviceBackend: Kokkos is not initialized"));
  }
  const ExecSpaceKind space = default_device_space();
  if (is_host_space(space) && config.device != 0) {
    return unexpected(backend_error(
        BackendErrorKind::InvalidConfig,
        "DeviceBackend: a host build has one device (ordinal 0), not " + std::to_string(config.device)));
  }
  if (config.device < 0) {
    return unexpected(
        backend_error(BackendErrorKind::InvalidConfig, "DeviceBackend: negative device ordinal"));
  }
  auto state = std::make_shared<impl::BackendState>();
  state->flavor = impl::BackendState::Flavor::Device;
  state->id = impl::BackendAccess::next_id();
  state->context.space = space;
  state->context.threads = is_host_space(space) ? concurrency(space) : 1;
  state->context.memory = MemoryKind::Device;
  state->context.device = config.device;
  state->forks = space == ExecSpaceKind::OpenMP;
  if (is_host_space(space)) {
    state->claim.cpus = CpuSet::allowed();
    state->claim.openmp_pool = state->forks;
  } else {
    state->claim.device = config.device;
  }
  state->admission = config.admission;
  state->default_policy = config.batch_policy;
  state->providers = default_provider_set(space);
  state->plan_cache.configure(config.plan_cache_capacity);
  state->host_pool = HostPool::create(config.pool);
  state->device_pool = DevicePool::create(config.pool);
  state->token_scope = &Internal::token_scope;
  impl::warm_serial_scratch();
  return DeviceBackend(std::move(state));
}

DeviceBackend DeviceBackend::make() {
  auto made = create(DeviceBackendConfig{});
  if (!made) throw std::invalid_argument(made.error().message);
  return std::move(made).value();
}

DeviceBackend::DeviceBackend(std::shared_ptr<impl::BackendState> state) : state_(std::move(state)) {}
DeviceBackend::DeviceBackend(DeviceBackend&&) noexcept = default;
DeviceBackend& DeviceBackend::operator=(DeviceBackend&&) noexcept = default;
DeviceBackend::~DeviceBackend() = default;

const ExecutionContext& DeviceBackend::context() const {
  return state_->context;
}
std::uint64_t DeviceBackend::id() const {
  return state_->id;
}
const BatchPolicy& DeviceBackend::batch_policy() const {
  return state_->default_policy;
}
Result<void, SessionEntryError> DeviceBackend::set_batch_policy(const BatchPolicy& policy) {
  return impl::admitted(state_.get(), [&](impl::BackendState& s) { s.default_policy = policy; });
}
Result<void, SessionEntryError> DeviceBackend::set_providers(ProviderSlot slot,
                                                             std::vector<const ProviderDecl*> candidates) {
  return impl::admitted(state_.get(),
                        [&](impl::BackendState& s) { s.providers.set(slot, std::move(candidates)); });
}
std::uint64_t DeviceBackend::provider_generation() const {
  return state_->providers.generation();
}
PlanCache& DeviceBackend::plan_cache() {
  return state_->plan_cache;
}
const std::shared_ptr<HostPool>& DeviceBackend::host_pool() const {
  return state_->host_pool;
}
const std::shared_ptr<DevicePool>& DeviceBackend::device_pool() const {
  return state_->device_pool;
}
LeaseStats DeviceBackend::lease_stats() const {
  return state_->lease_counters->snapshot();
}
bool DeviceBackend::poisoned() const {
  return state_->poisoned.load(std::memory_order_acquire);
}
Result<void, SessionEntryError> DeviceBackend::reset() {
  return impl::reset_state(state_.get());
}

}  // namespace tfbench
