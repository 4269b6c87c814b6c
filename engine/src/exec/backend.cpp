// CpuBackend and DeviceBackend: their shared handle (admitted mutation, reset), what each checks when it is
// created, the native tokens and the one visitor that recovers them, and held sessions (CPU only).

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
namespace {
std::uint64_t next_backend_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

BackendError backend_error(BackendErrorKind kind, std::string message) {
  return BackendError{kind, std::move(message)};
}

std::optional<BackendError> kokkos_missing(const char* backend) {
  if (Kokkos::is_initialized()) return std::nullopt;
  return backend_error(BackendErrorKind::NotInitialized,
                       std::string(backend) + ": Kokkos is not initialized");
}

// create() for callers that treat a bad configuration as a bug.
template <class Backend>
Backend created_or_throw(Result<Backend, BackendError> made) {
  if (!made) throw std::invalid_argument(made.error().message);
  return std::move(made).value();
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

// ---- native tokens: only this file knows the markers, so only its visitors can recognize a token.

namespace {
const char cpu_marker = 0;     // identifies CPU tokens; its address is private to this file
const char device_marker = 0;  // identifies device tokens

// A backend's TokenScope: its marker's token, live for the scope of one session.
template <const char* Marker>
void token_scope(impl::NativeServices& services, impl::FunctionRef<void(NativeSessionRef*)> body) {
  const impl::ScopedToken token(Marker, &services);
  body(token.get());
}

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

const impl::NativeServices& services_of(void* p) {
  return *static_cast<const impl::NativeServices*>(p);
}
}  // namespace

namespace impl {
struct NativeTokenAccess {
  // The one visitor: it checks liveness, the exact marker and the owning thread, then performs the
  // one audited cast.
  template <class Native>
  static Result<Native, NativeAccessError> recover(NativeSessionRef* token, const char* marker) {
    if (auto error = unreadable(token)) return unexpected(*error);
    if (token->marker_ != marker) return unexpected(NativeAccessError::ForeignBackend);
    if (token->owner_ != std::this_thread::get_id()) return unexpected(NativeAccessError::WrongThread);
    return Native(token->native_);
  }
};
}  // namespace impl

Result<CpuNative, NativeAccessError> CpuBackend::recover(NativeSessionRef* token) {
  return impl::NativeTokenAccess::recover<CpuNative>(token, &cpu_marker);
}

Result<DeviceNative, NativeAccessError> DeviceBackend::recover(NativeSessionRef* token) {
  return impl::NativeTokenAccess::recover<DeviceNative>(token, &device_marker);
}

namespace impl {
const ExecutionContext& NativeView::context() const {
  return services_of(services_).core->context;
}
std::uint64_t NativeView::backend_id() const {
  return services_of(services_).backend->id;
}
Session& NativeView::session() const {
  return *services_of(services_).session;
}
}  // namespace impl

const CpuSet& CpuNative::cpus() const {
  return services_of(services_).backend->claim.cpus;
}
int CpuNative::openmp_pool_size() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return concurrency(ExecSpaceKind::OpenMP);
#else
  return 0;
#endif
}

// ---- the shared handle

namespace impl {
namespace {
// A backend's state from what create() decided (context, claim) and the settings both configs share.
template <class Config>
std::shared_ptr<BackendState> new_state(BackendState::Flavor flavor, const ExecutionContext& context,
                                        const Claim& claim, const Config& config, TokenScope scope) {
  auto state = std::make_shared<BackendState>();
  state->flavor = flavor;
  state->id = next_backend_id();
  state->context = context;
  state->claim = claim;
  state->forks = context.space == ExecSpaceKind::OpenMP;
  state->admission = config.admission;
  state->default_policy = config.batch_policy;
  state->providers = default_provider_set(context.space);
  state->plan_cache.configure(config.plan_cache_capacity);
  state->host_pool = HostPool::create(config.pool);
  state->device_pool = DevicePool::create(config.pool);
  state->token_scope = scope;
  warm_serial_scratch();
  return state;
}
}  // namespace

BackendHandle::BackendHandle(std::shared_ptr<BackendState> state) : state_(std::move(state)) {}
BackendHandle::BackendHandle(BackendHandle&&) noexcept = default;
BackendHandle& BackendHandle::operator=(BackendHandle&&) noexcept = default;
BackendHandle::~BackendHandle() = default;

const ExecutionContext& BackendHandle::context() const {
  return state_->context;
}
std::uint64_t BackendHandle::id() const {
  return state_->id;
}
Admission BackendHandle::admission() const {
  return state_->admission;
}
const BatchPolicy& BackendHandle::batch_policy() const {
  return state_->default_policy;
}
Result<void, SessionEntryError> BackendHandle::set_batch_policy(const BatchPolicy& policy) {
  return admitted(state_.get(), [&](BackendState& s) { s.default_policy = policy; });
}
Result<void, SessionEntryError> BackendHandle::set_providers(ProviderSlot slot,
                                                             std::vector<const ProviderDecl*> candidates) {
  return admitted(state_.get(), [&](BackendState& s) { s.providers.set(slot, std::move(candidates)); });
}
std::uint64_t BackendHandle::provider_generation() const {
  return state_->providers.generation();
}
PlanCache& BackendHandle::plan_cache() {
  return state_->plan_cache;
}
const std::shared_ptr<HostPool>& BackendHandle::host_pool() const {
  return state_->host_pool;
}
const std::shared_ptr<DevicePool>& BackendHandle::device_pool() const {
  return state_->device_pool;
}
LeaseStats BackendHandle::lease_stats() const {
  return state_->lease_counters->snapshot();
}
bool BackendHandle::poisoned() const {
  return state_->poisoned.load(std::memory_order_acquire);
}
std::string BackendHandle::poison_reason() const {
  return state_->reason();
}
Result<void, SessionEntryError> BackendHandle::reset() {
  return reset_state(state_.get());
}

}  // namespace impl

// ---- CpuBackend

Result<CpuBackend, BackendError> CpuBackend::create(const CpuBackendConfig& config) {
  using impl::backend_error;
  if (auto missing = impl::kokkos_missing("CpuBackend")) return unexpected(std::move(*missing));
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

  ExecutionContext context;
  context.threads = threads;
  context.memory = MemoryKind::Host;
  context.space = context_space(config.space, threads);
  impl::Claim claim;
  claim.cpus = config.cpus ? *config.cpus : CpuSet::allowed();
  claim.openmp_pool = context.space == ExecSpaceKind::OpenMP;
  return CpuBackend(
      impl::new_state(impl::BackendState::Flavor::Cpu, context, claim, config, &token_scope<&cpu_marker>));
}

CpuBackend CpuBackend::serial() {
  return impl::created_or_throw(create(CpuBackendConfig{}));
}

CpuBackend CpuBackend::openmp(int threads) {
  CpuBackendConfig config;
  config.space = ExecSpaceKind::OpenMP;
  config.threads = threads;
  return impl::created_or_throw(create(config));
}

const CpuSet& CpuBackend::cpus() const {
  return state_->claim.cpus;
}

HeldSession CpuBackend::hold() {
  return HeldSession(state_);
}

// ---- held sessions (CPU backends only)

namespace {
struct HeldCpuRoot final : impl::HeldRoot {
  impl::ScopedToken token_;
  HeldCpuRoot() : token_(&cpu_marker, &services) {}
  NativeSessionRef* token() override { return token_.get(); }
};

// Same admission as with_session, but the permit and the root session outlive this call: the root
// becomes this thread's active session until the HeldSession is destroyed.
std::unique_ptr<impl::HeldRoot> open_held(impl::BackendState* state, SessionEntryError& error) {
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
}  // namespace

HeldSession::HeldSession(std::shared_ptr<impl::BackendState> state) : state_(std::move(state)) {
  root_ = open_held(state_.get(), error_);
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

// ---- DeviceBackend

Result<DeviceBackend, BackendError> DeviceBackend::create(const DeviceBackendConfig& config) {
  using impl::backend_error;
  if (auto missing = impl::kokkos_missing("DeviceBackend")) return unexpected(std::move(*missing));
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
  ExecutionContext context;
  context.space = space;
  context.threads = is_host_space(space) ? concurrency(space) : 1;
  context.memory = MemoryKind::Device;
  context.device = config.device;
  impl::Claim claim;
  if (is_host_space(space)) {
    claim.cpus = CpuSet::allowed();
    claim.openmp_pool = space == ExecSpaceKind::OpenMP;
  } else {
    claim.device = config.device;
  }
  return DeviceBackend(impl::new_state(impl::BackendState::Flavor::Device, context, claim, config,
                                       &token_scope<&device_marker>));
}

DeviceBackend DeviceBackend::make() {
  return impl::created_or_throw(create(DeviceBackendConfig{}));
}

}  // namespace tfbench
