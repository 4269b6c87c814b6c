// Native session token (seed D7): not forgeable, not copyable or movable, bound to its thread, and
// recovered only by its own backend's visitor. The compile-fail snippets under compile_fail/ pin the
// same properties as diagnostics.

#include <catch2/catch.hpp>

#include <thread>
#include <type_traits>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"

using namespace tfbench;

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

TEST_CASE("Native access error names", "[exec][native]") {
  REQUIRE(std::string(name(NativeAccessError::NoToken)) == "no-token");
  REQUIRE(std::string(name(NativeAccessError::ForeignBackend)) == "foreign-backend");
  REQUIRE(std::string(name(NativeAccessError::WrongThread)) == "wrong-thread");
}
