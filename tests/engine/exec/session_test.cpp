// Session/native bridge: typed admission before the callback, results not flattened,
// reentry without deadlock, reuse after an exception, every SessionEntryError reachable.

#include <catch2/catch.hpp>

#include <omp.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "exec/arbiter_probe.hpp"
#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"

using namespace tfbench;
using tfbench::testing::test_backend;

TEST_CASE("with_session returns the callback's value and never flattens its Result", "[exec][session]") {
  auto backend = test_backend();
  auto value = backend.with_session([](Session& s) { return s.threads() * 10; });
  REQUIRE(value.has_value());
  REQUIRE(*value == backend.context().threads * 10);

  // The callback's own typed failure is a value of the outer Result, not an entry error.
  using Inner = Result<int, SessionEntryError>;
  auto nested = backend.with_session([](Session&) -> Inner {
    return unexpected(SessionEntryError{SessionEntryErrorKind::Contended, "callback's own error"});
  });
  REQUIRE(nested.has_value());
  REQUIRE_FALSE(nested->has_value());
  REQUIRE(nested->error().message == "callback's own error");

  int calls = 0;
  auto nothing = backend.with_session([&](Session&) { ++calls; });
  REQUIRE(nothing.has_value());
  REQUIRE(calls == 1);
}

TEST_CASE("Same-thread reentry is Reentered before the callback, without deadlock", "[exec][session]") {
  auto backend = test_backend();
  auto other = tfbench::testing::backend_on(CpuSet::of({CpuSet::kMaxCpus - 1}));  // disjoint set
  bool inner_ran = false;
  auto outer = backend.with_session([&](Session&) {
    auto same = backend.with_session([&](Session&) { inner_ran = true; });
    auto disjoint = other.with_session([&](Session&) { inner_ran = true; });
    REQUIRE_FALSE(same.has_value());
    REQUIRE(same.error().kind == SessionEntryErrorKind::Reentered);
    REQUIRE_FALSE(disjoint.has_value());
    REQUIRE(disjoint.error().kind == SessionEntryErrorKind::Reentered);
    // Mutations are admitted like sessions: also rejected, not waited for.
    auto changed = backend.set_batch_policy(BatchPolicy{BatchStrategy::Sequential, {}});
    REQUIRE_FALSE(changed.has_value());
    REQUIRE(changed.error().kind == SessionEntryErrorKind::Reentered);
  });
  REQUIRE(outer.has_value());
  REQUIRE_FALSE(inner_ran);
}

TEST_CASE("An exception leaving the callback releases everything and the next session works",
          "[exec][session]") {
  auto backend = test_backend();
  const auto granted_before = impl::arbiter_granted();
  REQUIRE_THROWS_AS(backend.with_session([](Session&) -> int { throw std::runtime_error("kernel failed"); }),
                    std::runtime_error);
  REQUIRE(impl::arbiter_granted() == granted_before);
  auto next = backend.with_session([](Session& s) { return s.threads(); });
  REQUIRE(next.has_value());
  // The thread no longer counts as inside a session either.
  auto other = tfbench::testing::test_backend();
  REQUIRE(other.with_session([](Session&) {}).has_value());
}

TEST_CASE("ResourcePoisoned is reported before the callback until reset()", "[exec][session]") {
  auto backend = test_backend();
  REQUIRE(backend.with_session([](Session& s) { s.poison("device context lost (test)"); }).has_value());
  REQUIRE(backend.poisoned());
  bool ran = false;
  auto entry = backend.with_session([&](Session&) { ran = true; });
  REQUIRE_FALSE(entry.has_value());
  REQUIRE(entry.error().kind == SessionEntryErrorKind::ResourcePoisoned);
  REQUIRE(entry.error().message.find("device context lost (test)") != std::string::npos);
  REQUIRE_FALSE(ran);
  // Another backend is not affected.
  REQUIRE(test_backend().with_session([](Session&) {}).has_value());
  REQUIRE(backend.reset().has_value());
  REQUIRE_FALSE(backend.poisoned());
  REQUIRE(backend.with_session([&](Session&) { ran = true; }).has_value());
  REQUIRE(ran);
}

TEST_CASE("IncompatibleContext: a forking backend entered inside an OpenMP parallel region",
          "[exec][session]") {
  if (default_device_space() != ExecSpaceKind::OpenMP) {
    WARN("the device space is not OpenMP in this build: nothing forks the OpenMP pool");
    return;
  }
  auto device = DeviceBackend::make();
  auto serial = CpuBackend::serial();
  std::atomic<int> incompatible{0}, callbacks{0}, serial_sessions{0}, threads{0};
#pragma omp parallel num_threads(2)
  {
    threads.fetch_add(1);
    auto entry = device.with_session([&](Session&) { callbacks.fetch_add(1); });
    if (!entry && entry.error().kind == SessionEntryErrorKind::IncompatibleContext) incompatible.fetch_add(1);
    // A Serial backend does not fork: entering it from a region is fine (the two threads queue).
    if (serial.with_session([&](Session&) {}).has_value()) serial_sessions.fetch_add(1);
  }
  REQUIRE(incompatible.load() == threads.load());
  REQUIRE(callbacks.load() == 0);
  REQUIRE(serial_sessions.load() == threads.load());
}

namespace {
struct SumIndices {  // a functor, not a lambda: CUDA builds reject extended lambdas in generic lambdas
  KOKKOS_INLINE_FUNCTION void operator()(const int i, long& acc) const { acc += i; }
};
}  // namespace

TEST_CASE("Executor: a forking backend entered off the thread that initialized Kokkos", "[exec][session]") {
  if (default_device_space() != ExecSpaceKind::OpenMP) {
    WARN("the device space is not OpenMP in this build");
    return;
  }
  auto device = DeviceBackend::make();
  std::optional<SessionEntryError> error;
  bool ran = false;
  long sum = 0;
  std::thread([&] {
    auto entry = device.with_session([&](Session& s) {
      ran = true;
      s.dispatch([&](auto space) {
        Kokkos::parallel_reduce("tfbench::test::exec::off_thread_sum",
                                Kokkos::RangePolicy<decltype(space)>(space, 0, 1000), SumIndices{}, sum);
      });
    });
    if (!entry) error = entry.error();
  }).join();
#if KOKKOS_VERSION >= 40000
  // Kokkos 4 forks its OpenMP pool from any thread outside a parallel region: the entry runs there.
  REQUIRE_FALSE(error);
  REQUIRE(ran);
  REQUIRE(sum == 999L * 1000L / 2);
#else
  // Kokkos 3.4 forks only from the thread that initialized it: a typed error before the callback.
  REQUIRE(error);
  REQUIRE(error->kind == SessionEntryErrorKind::Executor);
  REQUIRE_FALSE(ran);
#endif
  // The initializing thread enters it.
  REQUIRE(device.with_session([](Session& s) { return s.space(); }).value() == ExecSpaceKind::OpenMP);
}

TEST_CASE("Contended: a busy caller-managed domain has no queue", "[exec][session]") {
  const auto cpus = CpuSet::of({CpuSet::kMaxCpus - 2});
  auto owner = tfbench::testing::backend_on(cpus);
  auto managed = tfbench::testing::backend_on(cpus, Admission::CallerManaged);
  std::optional<SessionEntryError> error;
  bool ran = false;
  REQUIRE(owner
              .with_session([&](Session&) {
                std::thread([&] {
                  auto entry = managed.with_session([&](Session&) { ran = true; });
                  if (!entry) error = entry.error();
                }).join();
              })
              .has_value());
  REQUIRE(error);
  REQUIRE(error->kind == SessionEntryErrorKind::Contended);
  REQUIRE_FALSE(ran);
  REQUIRE(managed.with_session([&](Session&) { ran = true; }).has_value());
  REQUIRE(ran);
}

TEST_CASE("A one-thread OpenMP context runs on Serial; budgets are validated", "[exec][session]") {
  if (is_enabled(ExecSpaceKind::OpenMP)) {
    auto one = CpuBackend::openmp(1);
    REQUIRE(one.context().space == ExecSpaceKind::Serial);
    REQUIRE(one.context().threads == 1);
    const int pool = tfbench::testing::openmp_pool();
    auto all = CpuBackend::openmp();
    REQUIRE(all.context().threads == pool);
    REQUIRE(all.context().space == (pool > 1 ? ExecSpaceKind::OpenMP : ExecSpaceKind::Serial));
    CpuBackendConfig too_many;
    too_many.space = ExecSpaceKind::OpenMP;
    too_many.threads = pool + 1;
    auto rejected = CpuBackend::create(too_many);
    REQUIRE_FALSE(rejected.has_value());
    REQUIRE(rejected.error().kind == BackendErrorKind::InvalidConfig);
  }
  CpuBackendConfig negative;
  negative.threads = -1;
  REQUIRE(CpuBackend::create(negative).error().kind == BackendErrorKind::InvalidConfig);
  CpuBackendConfig cuda;
  cuda.space = ExecSpaceKind::Cuda;
  REQUIRE(CpuBackend::create(cuda).error().kind == BackendErrorKind::InvalidConfig);
  CpuBackendConfig empty_set;
  empty_set.cpus = CpuSet();
  REQUIRE(CpuBackend::create(empty_set).error().kind == BackendErrorKind::InvalidConfig);
}

TEST_CASE("context_space: one thread on a host space is Serial, a device space stays itself",
          "[exec][session]") {
  const ExecSpaceKind one_host = context_space(ExecSpaceKind::OpenMP, 1);
  REQUIRE(one_host == (is_enabled(ExecSpaceKind::Serial) ? ExecSpaceKind::Serial : ExecSpaceKind::OpenMP));
  REQUIRE(context_space(ExecSpaceKind::OpenMP, 2) == ExecSpaceKind::OpenMP);
  REQUIRE(context_space(ExecSpaceKind::Serial, 1) == ExecSpaceKind::Serial);
  REQUIRE(context_space(ExecSpaceKind::Cuda, 1) == ExecSpaceKind::Cuda);  // no CUDA build needed
  // CpuBackend decides with it: its context's space is context_space of its space and budget.
  if (is_enabled(ExecSpaceKind::OpenMP)) {
    REQUIRE(CpuBackend::openmp(1).context().space == one_host);
    const int pool = tfbench::testing::openmp_pool();
    REQUIRE(CpuBackend::openmp().context().space == context_space(ExecSpaceKind::OpenMP, pool));
  }
}

TEST_CASE("The session's space runs a Kokkos kernel through dispatch()", "[exec][session]") {
  auto backend = test_backend();
  auto sum = backend.with_session([](Session& s) {
    return s.dispatch([](auto space) {
      using Space = decltype(space);
      double total = 0;
      long indices = 0;
      Kokkos::parallel_reduce("tfbench::tests::exec::dispatch_sum", Kokkos::RangePolicy<Space>(space, 0, 100),
                              SumIndices{}, indices);
      total = double(indices);
      return total;
    });
  });
  REQUIRE(sum.value() == Approx(4950));
}

TEST_CASE("Entry error names", "[exec][session]") {
  REQUIRE(std::string(name(SessionEntryErrorKind::Reentered)) == "reentered");
  REQUIRE(std::string(name(SessionEntryErrorKind::Contended)) == "contended");
  REQUIRE(std::string(name(SessionEntryErrorKind::IncompatibleContext)) == "incompatible-context");
  REQUIRE(std::string(name(SessionEntryErrorKind::ResourcePoisoned)) == "resource-poisoned");
  REQUIRE(std::string(name(SessionEntryErrorKind::Executor)) == "executor");
}
