// Native session token: not forgeable, not copyable or movable, bound to its thread, and
// recovered only by its own backend's visitor. The compile-fail snippets under compile_fail/ pin the
// same properties as diagnostics.

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <thread>
#include <type_traits>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/phase.hpp"

using namespace tfbench;

namespace {
bool with_device_native_token_is_refused(NativeSessionRef* token) {
  auto r = DeviceBackend::recover(token);
  return !r.has_value() && r.error() == NativeAccessError::Expired;
}
}  // namespace

static_assert(!std::is_default_constructible<NativeSessionRef>::value, "no default token");
static_assert(!std::is_constructible<NativeSessionRef, const void*, void*>::value,
              "the only constructor is private to the backends");
static_assert(!std::is_copy_constructible<NativeSessionRef>::value, "tokens are not copyable");
static_assert(!std::is_move_constructible<NativeSessionRef>::value,
              "tokens do not move (or escape by value)");
static_assert(!std::is_copy_assignable<NativeSessionRef>::value, "tokens are not assignable");
static_assert(!std::is_move_assignable<NativeSessionRef>::value, "tokens are not assignable");
static_assert(!std::is_copy_constructible<Session>::value && !std::is_move_constructible<Session>::value,
              "sessions are borrowed, never copied");

TEST_CASE("The CPU visitor recovers the entered session from its own token", "[exec][native]") {
  auto backend = tfbench::testing::test_backend();
  auto seen = backend.with_session([&](Session& session) {
    REQUIRE(session.native_session() != nullptr);
    REQUIRE(session.native_session()->owner_thread() == std::this_thread::get_id());
    auto native = with_cpu_native(session, [&](CpuNative& n) {
      REQUIRE(&n.session() == &session);
      REQUIRE(n.backend_id() == backend.id());
      REQUIRE(n.context().threads == session.threads());
      REQUIRE(n.cpus() == backend.cpus());
      return n.context().space;
    });
    REQUIRE(native.has_value());
    return *native;
  });
  REQUIRE(seen.value() == backend.context().space);
}

TEST_CASE("A visitor rejects another leaf's token", "[exec][native]") {
  auto cpu = tfbench::testing::test_backend();
  REQUIRE(cpu.with_session([](Session& s) {
               auto foreign =
                   with_device_native(s, [](DeviceNative&) { FAIL("device visitor ran on a CPU token"); });
               REQUIRE_FALSE(foreign.has_value());
               REQUIRE(foreign.error() == NativeAccessError::ForeignBackend);
             })
              .has_value());
  auto device = DeviceBackend::make();
  REQUIRE(device
              .with_session([](Session& s) {
                auto foreign =
                    with_cpu_native(s, [](CpuNative&) { FAIL("CPU visitor ran on a device token"); });
                REQUIRE(foreign.error() == NativeAccessError::ForeignBackend);
                auto own = with_device_native(s, [&](DeviceNative& n) { return &n.session() == &s; });
                REQUIRE(own.value());
              })
              .has_value());
}

TEST_CASE("A token is refused off the thread that entered its session", "[exec][native]") {
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([](Session& session) {
                std::optional<NativeAccessError> error;
                std::thread([&] {
                  auto r = with_cpu_native(session, [](CpuNative&) { FAIL("visitor ran off-thread"); });
                  if (!r) error = r.error();
                }).join();
                REQUIRE(error == NativeAccessError::WrongThread);
              })
              .has_value());
}

namespace {
// Enters `backend` and keeps its token past the callback (what a careless caller can do).
NativeSessionRef* escape_token(CpuBackend& backend) {
  NativeSessionRef* escaped = nullptr;
  REQUIRE(backend.with_session([&](Session& s) { escaped = s.native_session(); }).has_value());
  return escaped;
}
}  // namespace

TEST_CASE("An escaped token is refused once its session ended, and never read", "[exec][native]") {
  auto backend = tfbench::testing::test_backend();
  NativeSessionRef* escaped = escape_token(backend);
  REQUIRE(escaped != nullptr);
  auto after = CpuBackend::recover(escaped);
  REQUIRE_FALSE(after.has_value());
  REQUIRE(after.error() == NativeAccessError::Expired);
  REQUIRE(with_device_native_token_is_refused(escaped));
}

TEST_CASE("An escaped token does not recover a later session of another backend", "[exec][native]") {
  // The later session is entered the same way, so a token on the entry's stack would sit at the same
  // address: the escaped pointer must not reach the later session.
  auto first = tfbench::testing::test_backend();
  auto second = CpuBackend::serial();
  NativeSessionRef* escaped = escape_token(first);
  std::optional<NativeAccessError> error;
  std::uint64_t recovered_backend = 0;
  bool own_token_works = false;
  auto later = [&](Session& s) {
    auto r = CpuBackend::recover(escaped);
    if (r) recovered_backend = r->backend_id();
    if (!r) error = r.error();
    own_token_works = CpuBackend::recover(s.native_session()).has_value();
  };
  REQUIRE(second.with_session(later).has_value());
  REQUIRE(recovered_backend == 0);
  REQUIRE(error == NativeAccessError::Expired);
  REQUIRE(own_token_works);
  // Many later sessions in between change nothing.
  for (int i = 0; i < 100; ++i) REQUIRE(second.with_session([](Session&) {}).has_value());
  REQUIRE(CpuBackend::recover(escaped).error() == NativeAccessError::Expired);
}

TEST_CASE("A held session's token expires with the held session", "[exec][native]") {
  auto backend = tfbench::testing::test_backend();
  NativeSessionRef* escaped = nullptr;
  {
    auto held = backend.hold();
    REQUIRE(held.ok());
    escaped = held.session().native_session();
    REQUIRE(CpuBackend::recover(escaped).has_value());
  }
  REQUIRE(CpuBackend::recover(escaped).error() == NativeAccessError::Expired);
}

TEST_CASE("A pointer that is no token is refused without being read", "[exec][native]") {
  alignas(64) unsigned char not_a_token[256] = {};
  auto* forged = reinterpret_cast<NativeSessionRef*>(not_a_token);
  REQUIRE(CpuBackend::recover(forged).error() == NativeAccessError::Expired);
  REQUIRE(DeviceBackend::recover(forged).error() == NativeAccessError::Expired);
}

TEST_CASE("Native access error names", "[exec][native]") {
  REQUIRE(std::string(name(NativeAccessError::Expired)) == "expired");
  REQUIRE(std::string(name(NativeAccessError::NoToken)) == "no-token");
  REQUIRE(std::string(name(NativeAccessError::ForeignBackend)) == "foreign-backend");
  REQUIRE(std::string(name(NativeAccessError::WrongThread)) == "wrong-thread");
}
