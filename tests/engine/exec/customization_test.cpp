// Customization: a user session wrapper overrides an operation hook (its providers), keeps
// the delegate's context, and withholds the native token by default or forwards it on purpose.

#include <catch2/catch.hpp>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"

using namespace tfbench;

namespace {

const ProviderDecl custom_gemm{"custom-gemm", ProviderParallelism::Sequential, true, true, false};

// Overrides the batched-GEMM hook; withholds the native token (the SessionWrapper default).
class CustomGemmSession : public SessionWrapper {
 public:
  explicit CustomGemmSession(Session& inner) : SessionWrapper(inner), providers_(inner.providers()) {
    auto candidates = inner.providers().candidates(ProviderSlot::BatchedGemm);
    candidates.insert(candidates.begin(), &custom_gemm);
    providers_.set(ProviderSlot::BatchedGemm, candidates);
  }
  const ProviderSet& providers() const override { return providers_; }

 private:
  ProviderSet providers_;
};

// Additionally forwards the delegate's token: native extensions then see the delegate's services.
class ForwardingSession : public CustomGemmSession {
 public:
  using CustomGemmSession::CustomGemmSession;
  NativeSessionRef* native_session() override { return inner().native_session(); }
};

const BatchProblem small_batch{4, 4, 64};

}  // namespace

TEST_CASE("A session wrapper overrides the provider hook and keeps the delegate's context",
          "[exec][customization]") {
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([&](Session& inner) {
                CustomGemmSession custom(inner);
                // Delegation preserves the context and the borrowed resources.
                REQUIRE(&custom.context() == &inner.context());
                REQUIRE(&custom.plan_cache() == &inner.plan_cache());
                REQUIRE(custom.backend_id() == inner.backend_id());
                // The overridden hook is what operations reach.
                auto mine = resolve_batch_route(custom, std::nullopt, small_batch,
                                                custom.providers().candidates(ProviderSlot::BatchedGemm));
                REQUIRE(mine.value().provider == &custom_gemm);
                auto theirs = resolve_batch_route(inner, std::nullopt, small_batch,
                                                  inner.providers().candidates(ProviderSlot::BatchedGemm));
                REQUIRE(theirs.value().provider == &providers::kokkos_batched_serial);
                REQUIRE(custom.providers().generation() != inner.providers().generation());
                // A scoped policy set through the wrapper is the delegate's (one session).
                with_batch_policy(custom, BatchPolicy{BatchStrategy::Sequential, {}},
                                  [&](Session&) { REQUIRE(inner.scoped_batch_policy().has_value()); });
                REQUIRE_FALSE(inner.scoped_batch_policy().has_value());
              })
              .has_value());
}

TEST_CASE("A wrapper withholds the native token unless it forwards it", "[exec][customization]") {
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([&](Session& inner) {
                CustomGemmSession withholding(inner);
                REQUIRE(withholding.native_session() == nullptr);
                auto none = with_cpu_native(withholding, [](CpuNative&) { FAIL("no token was offered"); });
                REQUIRE(none.error() == NativeAccessError::NoToken);

                ForwardingSession forwarding(inner);
                auto native = with_cpu_native(forwarding, [&](CpuNative& n) { return &n.session(); });
                // The forwarded token leads to the delegate, not to the wrapper: a wrapper that
                // forwards it knowingly exposes the delegate's native services.
                REQUIRE(native.value() == &inner);
              })
              .has_value());
}

TEST_CASE(
    "Lanes started through a wrapper reach its overridden providers, and rejection happens before "
    "dispatch",
    "[exec][customization]") {
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([&](Session& inner) {
                CustomGemmSession custom(inner);
                std::atomic<int> lanes_with_custom{0};
                auto ran = with_outer_lanes(custom, ProviderCandidates{&custom_gemm}, [&](OuterLane& lane) {
                  const auto& c = lane.session().providers().candidates(ProviderSlot::BatchedGemm);
                  if (!c.empty() && c.front() == &custom_gemm) lanes_with_custom++;
                });
                REQUIRE(ran.has_value());
                REQUIRE(lanes_with_custom.load() >= 1);

                // The wrapper's slot still reaches the built-in OpenBLAS after its own provider: a fan-out
                // that could call it is rejected before any lane starts.
                std::atomic<int> lanes_run{0};
                auto rejected =
                    with_outer_lanes(custom, custom.providers().candidates(ProviderSlot::BatchedGemm),
                                     [&](OuterLane&) { lanes_run++; });
                REQUIRE_FALSE(rejected.has_value());
                REQUIRE(rejected.error().kind == RouteErrorKind::IndependentRuntimeInFanOut);
                REQUIRE(lanes_run.load() == 0);
              })
              .has_value());
}
