// The process-wide permit arbiter across threads (entry waits for a contended permit, see
// docs/sessions.md): overlapping backends serialize in FIFO order, disjoint ones run together, a waiter is
// never overtaken by a later overlapping request, a busy caller-managed domain is Contended, and an
// exception releases the permit for the next waiter. No OpenMP here (ThreadSanitizer sees everything).
// Catch2 assertions are not thread-safe: worker threads record outcomes, the test thread asserts.

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "exec/arbiter.hpp"
#include "exec/arbiter_probe.hpp"
#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"

using namespace tfbench;
using tfbench::testing::backend_on;
using tfbench::testing::eventually;

namespace {
// A gate the test opens to let a session callback return.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return open; });
  }
};

struct Log {
  std::mutex mutex;
  std::vector<std::string> events;
  void add(std::string e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(std::move(e));
  }
  std::vector<std::string> get() {
    std::lock_guard<std::mutex> lock(mutex);
    return events;
  }
};
}  // namespace

TEST_CASE("Backends on overlapping CPU sets serialize across threads, disjoint ones run together",
          "[exec][arbiter]") {
  auto a = backend_on(CpuSet::of({0}));
  auto b = backend_on(CpuSet::of({0, 1}));
  auto disjoint = backend_on(CpuSet::of({7}));
  Gate gate;
  std::atomic<bool> a_in{false}, b_in{false}, a_ok{false}, b_ok{false};
  Log log;
  std::thread holder([&] {
    a_ok = a.with_session([&](Session&) {
              log.add("a-enter");
              a_in = true;
              gate.wait();
              log.add("a-exit");
            }).has_value();
  });
  REQUIRE(eventually([&] { return a_in.load(); }));
  std::thread waiter([&] {
    b_ok = b.with_session([&](Session&) {
              log.add("b-enter");
              b_in = true;
            }).has_value();
  });
  REQUIRE(eventually([&] { return impl::arbiter_waiting() == 1; }));
  REQUIRE_FALSE(b_in.load());
  // A disjoint backend is admitted while a holds its set and b waits.
  REQUIRE(disjoint.with_session([&](Session&) { log.add("disjoint"); }).has_value());
  gate.release();
  holder.join();
  waiter.join();
  REQUIRE(a_ok.load());
  REQUIRE(b_ok.load());
  REQUIRE(log.get() == std::vector<std::string>{"a-enter", "disjoint", "a-exit", "b-enter"});
  REQUIRE(impl::arbiter_waiting() == 0);
}

TEST_CASE("Waiters are served FIFO and never overtaken by a later overlapping request", "[exec][arbiter]") {
  // a holds {0}; b waits for {0,1}; c wants {1}: free now, but it overlaps the earlier waiter b.
  auto a = backend_on(CpuSet::of({0}));
  auto b = backend_on(CpuSet::of({0, 1}));
  auto c = backend_on(CpuSet::of({1}));
  Gate release_a, release_b;
  std::atomic<bool> a_in{false};
  Log log;
  std::thread ta([&] {
    (void)a.with_session([&](Session&) {
      a_in = true;
      release_a.wait();
      log.add("a");
    });
  });
  REQUIRE(eventually([&] { return a_in.load(); }));
  std::thread tb([&] {
    (void)b.with_session([&](Session&) {
      log.add("b-enter");
      release_b.wait();
      log.add("b-exit");
    });
  });
  REQUIRE(eventually([&] { return impl::arbiter_waiting() == 1; }));
  std::thread tc([&] { (void)c.with_session([&](Session&) { log.add("c"); }); });
  REQUIRE(eventually([&] { return impl::arbiter_waiting() == 2; }));
  release_a.release();
  REQUIRE(eventually([&] { return log.get().size() == 2; }));
  REQUIRE(impl::arbiter_waiting() == 1);  // c still queued behind b
  release_b.release();
  ta.join();
  tb.join();
  tc.join();
  REQUIRE(log.get() == std::vector<std::string>{"a", "b-enter", "b-exit", "c"});
}

TEST_CASE("Many threads on one default backend each get a turn, one at a time", "[exec][arbiter]") {
  auto backend = tfbench::testing::backend_on(CpuSet::allowed());
  std::atomic<int> inside{0}, max_inside{0}, sessions{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        const bool ok = backend
                            .with_session([&](Session&) {
                              const int now = ++inside;
                              int seen = max_inside.load();
                              while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
                              }
                              ++sessions;
                              --inside;
                            })
                            .has_value();
        if (!ok) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(failures.load() == 0);
  REQUIRE(sessions.load() == 200);
  REQUIRE(max_inside.load() == 1);
}

TEST_CASE("Same-thread reentry is Reentered on any backend, never a wait", "[exec][arbiter]") {
  auto a = backend_on(CpuSet::of({3}));
  auto b = backend_on(CpuSet::of({4}));
  REQUIRE(a.with_session([&](Session&) {
             auto nested = b.with_session([](Session&) {});
             REQUIRE(nested.error().kind == SessionEntryErrorKind::Reentered);
             REQUIRE(impl::arbiter_waiting() == 0);
           }).has_value());
}

TEST_CASE("A busy caller-managed domain is Contended at once; a queued one waits", "[exec][arbiter]") {
  const auto cpus = CpuSet::of({5});
  auto owner = backend_on(cpus);
  auto managed = backend_on(cpus, Admission::CallerManaged);
  Gate gate;
  std::atomic<bool> in{false};
  std::thread holder([&] {
    (void)owner.with_session([&](Session&) {
      in = true;
      gate.wait();
    });
  });
  REQUIRE(eventually([&] { return in.load(); }));
  bool ran = false;
  auto busy = managed.with_session([&](Session&) { ran = true; });
  REQUIRE(busy.error().kind == SessionEntryErrorKind::Contended);
  REQUIRE_FALSE(ran);
  REQUIRE(impl::arbiter_waiting() == 0);  // no queue entry was left behind
  gate.release();
  holder.join();
  REQUIRE(managed.with_session([&](Session&) { ran = true; }).has_value());
  REQUIRE(ran);
}

TEST_CASE("An exception in a session releases the permit to the next waiter", "[exec][arbiter]") {
  auto backend = backend_on(CpuSet::of({6}));
  Gate gate;
  std::atomic<bool> in{false}, second_ran{false}, threw{false}, reentered_after{false};
  std::thread thrower([&] {
    try {
      (void)backend.with_session([&](Session&) {
        in = true;
        gate.wait();
        throw std::runtime_error("provider failed");
      });
    } catch (const std::runtime_error&) {
      threw = true;
    }
    // The throwing thread itself can enter again.
    reentered_after = backend.with_session([](Session&) {}).has_value();
  });
  REQUIRE(eventually([&] { return in.load(); }));
  std::thread waiter([&] { (void)backend.with_session([&](Session&) { second_ran = true; }); });
  REQUIRE(eventually([&] { return impl::arbiter_waiting() == 1; }));
  gate.release();
  thrower.join();
  waiter.join();
  REQUIRE(threw.load());
  REQUIRE(reentered_after.load());
  REQUIRE(second_ran.load());
  REQUIRE(impl::arbiter_granted() == 0);
}

TEST_CASE("A permit granted lock-free counts as granted, hands over to the queue, and the path returns",
          "[exec][arbiter]") {
  using impl::Arbiter;
  Arbiter& arbiter = Arbiter::instance();
  const impl::Claim cpu8{CpuSet::of({8})}, cpu8_9{CpuSet::of({8, 9})}, cpu10{CpuSet::of({10})};
  impl::PermitNode first, busy, beside;
  first.claim = &cpu8;
  busy.claim = &cpu8_9;
  busy.no_wait = true;
  beside.claim = &cpu10;
  REQUIRE(arbiter.acquire(first) == Arbiter::Outcome::Granted);  // an idle arbiter: the lock-free path
  REQUIRE(arbiter.granted_count() == 1);
  REQUIRE(arbiter.acquire(busy) == Arbiter::Outcome::Contended);  // it overlaps the lock-free holder
  REQUIRE(arbiter.acquire(beside) == Arbiter::Outcome::Granted);  // disjoint: granted beside it
  REQUIRE(arbiter.granted_count() == 2);
  arbiter.release(first);  // through the mutex: the list is in use
  REQUIRE(arbiter.granted_count() == 1);
  REQUIRE(arbiter.acquire(busy) == Arbiter::Outcome::Granted);
  arbiter.release(busy);
  arbiter.release(beside);
  REQUIRE(arbiter.granted_count() == 0);

  // A waiter queued behind a lock-free holder is granted by the holder's release, and once the queue
  // is empty the next permit is lock-free again (the waiter's release leaves nothing behind).
  for (int round = 0; round < 2; ++round) {
    impl::PermitNode holder, waiter;
    holder.claim = &cpu8;
    waiter.claim = &cpu8_9;
    REQUIRE(arbiter.acquire(holder) == Arbiter::Outcome::Granted);
    std::atomic<bool> granted{false};
    std::thread t([&] { granted = arbiter.acquire(waiter) == Arbiter::Outcome::Granted; });
    REQUIRE(eventually([&] { return arbiter.waiting_count() == 1; }));
    REQUIRE_FALSE(granted.load());
    arbiter.release(holder);
    t.join();
    REQUIRE(granted.load());
    REQUIRE(arbiter.granted_count() == 1);
    arbiter.release(waiter);
    REQUIRE(arbiter.granted_count() == 0);
    REQUIRE(arbiter.waiting_count() == 0);
  }
  REQUIRE_FALSE(arbiter.poisoned());
}

TEST_CASE("Plan cache preparation races on one key share one plan", "[exec][arbiter][plan]") {
  PlanCache cache;
  struct Plan : PreparedOp {
    int thread;
    explicit Plan(int t) : thread(t) {}
  };
  PlanKey key;
  key.operation = "shared";
  std::vector<std::shared_ptr<const Plan>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { seen[t] = cache.get_or_prepare<Plan>(key, [&] { return Plan(t); }); });
  }
  for (auto& t : threads) t.join();
  auto winner = cache.find<Plan>(key);
  REQUIRE(winner);
  int same = 0;
  for (auto& p : seen) same += p == winner ? 1 : 0;
  REQUIRE(same == 4);  // the first inserted plan wins and every racer gets it
  REQUIRE(cache.stats().size == 1);
}
