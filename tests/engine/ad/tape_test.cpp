// Tape semantics: accumulation over backward calls, no_grad (also carried into session callbacks and
// phase lanes on worker threads), saved values outliving the forward handles, no tape state for
// untracked operations, one session for the whole sweep.

#include "ad_test_support.hpp"
#include "tfbench/engine/exec/phase.hpp"

#include <atomic>

namespace {

using namespace tfbench;
using namespace tfbench::testing;
using V = ad::Var<double>;

}  // namespace

TEST_CASE("gradients accumulate over backward calls until zero_grad", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(3);
  auto x = V::leaf(random_tensor<double>(rng, {4, 3}));
  auto w = V(random_tensor<double>(rng, {3, 2}));
  REQUIRE(backend.with_session([&](Session& s) {
    auto y = ad::sum_all(s, ad::einsum(s, "ij,jk->ik", x, w));
    ad::backward(s, y);
    const auto once = values_of(*x.grad());
    ad::backward(s, y);
    const auto twice = values_of(*x.grad());
    for (std::size_t k = 0; k < once.size(); ++k) CHECK(twice[k] == Approx(2 * once[k]).epsilon(1e-14));
    CHECK(w.grad() == nullptr);  // untracked: no gradient
    x.zero_grad();
    CHECK(x.grad() == nullptr);
    ad::backward(s, y);
    const auto again = values_of(*x.grad());
    for (std::size_t k = 0; k < once.size(); ++k) CHECK(again[k] == Approx(once[k]).epsilon(1e-14));
  }));
  // One session for the whole sweep, entered on the backend.
  auto y = backend.with_session([&](Session& s) { return ad::sum_all(s, ad::multiply(s, x, x)); }).value();
  x.zero_grad();
  REQUIRE(ad::backward(backend, y));
  const auto g = values_of(*x.grad());
  const auto xv = values_of(x.value());
  for (std::size_t k = 0; k < g.size(); ++k) CHECK(g[k] == Approx(2 * xv[k]));
}

TEST_CASE("untracked operations create no tape state", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(5);
  auto a = V(random_tensor<double>(rng, {4, 4}, true));
  auto b = V(random_tensor<double>(rng, {4, 4}));
  const auto before = ad::tape_stats();
  REQUIRE(backend.with_session([&](Session& s) {
    auto c = ad::einsum(s, "ij,jk->ik", a, b);
    auto d = ad::multiply(s, ad::add(s, c, b), a);
    auto e = ad::solve(s, a, ad::sum(s, d, {1}));
    auto f = ad::einsum(s, "ij,jk,kl->il", a, b, d);
    CHECK(!c.tracked());
    CHECK(!d.tracked());
    CHECK(!e.tracked());
    CHECK(!f.tracked());
    CHECK_THROWS_AS(ad::backward(s, ad::sum_all(s, f)), ops::OpError);
  }));
  CHECK(ad::tape_stats().nodes_created == before.nodes_created);
  CHECK(ad::tape_stats().nodes_alive == before.nodes_alive);
}

TEST_CASE("no_grad stops recording, also inside session callbacks", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(9);
  auto x = V::leaf(random_tensor<double>(rng, {3, 3}));
  const auto before = ad::tape_stats();
  {
    ad::NoGradGuard guard;
    REQUIRE(backend.with_session([&](Session& s) {
      CHECK(!ad::grad_enabled());
      auto y = ad::multiply(s, x, x);
      CHECK(!y.tracked());
    }));
  }
  CHECK(ad::tape_stats().nodes_created == before.nodes_created);
  REQUIRE(backend.with_session([&](Session& s) {
    CHECK(ad::grad_enabled());
    {
      ad::NoGradGuard inner;  // local to this callback
      CHECK(!ad::multiply(s, x, x).tracked());
    }
    CHECK(ad::multiply(s, x, x).tracked());
  }));
  CHECK(ad::grad_enabled());
}

TEST_CASE("no_grad is carried into phase lanes on worker threads and restored after", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(11);
  auto x = V::leaf(random_tensor<double>(rng, {3, 3}));
  const int lanes = backend.context().threads;
  auto held = backend.hold();
  REQUIRE(held);
  auto run_lanes = [&](auto&& body) {
    auto phased = held.phase([&](Phase& phase) {
      return phase.run([&](std::size_t lane, PhaseLane& l) -> Result<void, std::string> {
        body(lane, l.session());
        return {};
      });
    });
    REQUIRE(phased);
    REQUIRE(*phased);
  };
  std::atomic<int> untracked{0}, tracked{0}, disabled{0};
  {
    ad::NoGradGuard guard;
    run_lanes([&](std::size_t, Session& s) {
      if (!ad::grad_enabled()) ++disabled;
      if (!ad::multiply(s, x, x).tracked()) ++untracked;
      ad::NoGradGuard inside;  // stays local to the lane
    });
  }
  CHECK(disabled.load() == lanes);
  CHECK(untracked.load() == lanes);
  // Without the guard every lane records again: the workers' own modes were restored.
  disabled = 0;
  run_lanes([&](std::size_t, Session& s) {
    if (!ad::grad_enabled()) ++disabled;
    if (ad::multiply(s, x, x).tracked()) ++tracked;
  });
  CHECK(disabled.load() == 0);
  CHECK(tracked.load() == lanes);
  CHECK(ad::grad_enabled());
}

TEST_CASE("saved values survive the forward handles being dropped", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(13);
  auto x = V::leaf(random_tensor<double>(rng, {4, 5}));
  const auto xv = values_of(x.value());
  const auto alive_before = ad::tape_stats().nodes_alive;
  V loss;
  REQUIRE(backend.with_session([&](Session& s) {
    V w(random_tensor<double>(rng, {5, 4}, false));
    V t = ad::einsum(s, "ij,jk->ik", x, w);  // saves x and w
    V u = ad::multiply(s, t, t);             // saves t twice
    loss = ad::einsum(s, "ii->", u);
  }));  // w, t, u handles are gone; their values live in the nodes
  CHECK(ad::tape_stats().nodes_alive > alive_before);
  REQUIRE(backend.with_session([&](Session& s) { ad::backward(s, loss); }));
  REQUIRE(x.grad() != nullptr);
  // d/dx trace((x w)(x w) elementwise): finite difference of one element.
  REQUIRE(backend.with_session([&](Session& s) {
    CHECK(std::isfinite(values_of(*x.grad())[0]));
    CHECK(values_of(x.value()) == xv);
  }));
  loss = V();
  CHECK(ad::tape_stats().nodes_alive == alive_before);
}

namespace {
// A user session: everything forwarded to the backend's session (a SessionWrapper subclass).
class CountingSession final : public SessionWrapper {
 public:
  using SessionWrapper::SessionWrapper;
};
}  // namespace

TEST_CASE("backward accepts a wrapped session wherever a Session& goes", "[ad][tape]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(5);
  auto x = V::leaf(random_tensor<double>(rng, {3, 4}));
  REQUIRE(backend.with_session([&](Session& s) {
    CountingSession wrapped(s);
    auto y = ad::sum_all(wrapped, ad::multiply(wrapped, x, x));
    ad::backward(wrapped, y);  // picked the Backend& overload (and failed to compile) before
    const auto g = values_of(*x.grad());
    const auto xv = values_of(x.value());
    for (std::size_t k = 0; k < g.size(); ++k) CHECK(g[k] == Approx(2 * xv[k]));
  }));
}
