#include "arbiter.hpp"

#include <utility>

namespace tfbench::impl {

bool conflicts(const Claim& a, const Claim& b) {
  if (a.openmp_pool && b.openmp_pool) return true;
  if (a.device >= 0 && a.device == b.device) return true;
  return a.cpus.overlaps(b.cpus);
}

namespace {
// One wake-up condition per waiting thread, so a release wakes exactly the waiters it grants.
std::condition_variable& thread_wake() {
  thread_local std::condition_variable wake;
  return wake;
}
}  // namespace

void Arbiter::List::push_back(PermitNode& node) {
  node.prev = tail;
  node.next = nullptr;
  if (tail) {
    tail->next = &node;
  } else {
    head = &node;
  }
  tail = &node;
}

void Arbiter::List::unlink(PermitNode& node) {
  if (node.prev) {
    node.prev->next = node.next;
  } else {
    head = node.next;
  }
  if (node.next) {
    node.next->prev = node.prev;
  } else {
    tail = node.prev;
  }
  node.prev = node.next = nullptr;
}

bool Arbiter::List::contains(const PermitNode& node) const {
  for (const PermitNode* n = head; n; n = n->next) {
    if (n == &node) return true;
  }
  return false;
}

std::size_t Arbiter::List::size() const {
  std::size_t count = 0;
  for (const PermitNode* n = head; n; n = n->next) ++count;
  return count;
}

Arbiter& Arbiter::instance() {
  static Arbiter arbiter;
  return arbiter;
}

PermitNode* Arbiter::fast_holder_locked() const {
  return reinterpret_cast<PermitNode*>(word_.load(std::memory_order_acquire) & ~kSlow);
}

// Blocked when the node overlaps a granted permit or a waiter queued before `stop_at`.
bool Arbiter::blocked_locked(const PermitNode& node, const PermitNode* stop_at) const {
  if (const PermitNode* fast = fast_holder_locked(); fast && conflicts(*fast->claim, *node.claim))
    return true;
  for (const PermitNode* g = granted_.head; g; g = g->next) {
    if (conflicts(*g->claim, *node.claim)) return true;
  }
  for (const PermitNode* w = waiting_.head; w && w != stop_at; w = w->next) {
    if (conflicts(*w->claim, *node.claim)) return true;
  }
  return false;
}

Arbiter::Outcome Arbiter::acquire(PermitNode& node) {
  // Release: a thread that reads the word under the mutex then reads this node's claim.
  std::uintptr_t idle = 0;
  if (word_.compare_exchange_strong(idle, reinterpret_cast<std::uintptr_t>(&node), std::memory_order_acq_rel,
                                    std::memory_order_relaxed)) {
    node.granted = true;
    return Outcome::Granted;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (poisoned_) return Outcome::Poisoned;
  // From here the fast holder can only release through the mutex.
  word_.fetch_or(kSlow, std::memory_order_acq_rel);
  if (!blocked_locked(node, nullptr)) {
    granted_.push_back(node);
    node.granted = true;
    return Outcome::Granted;
  }
  if (node.no_wait) {
    settle_locked();
    return Outcome::Contended;
  }
  node.wake = &thread_wake();
  waiting_.push_back(node);
  node.wake->wait(lock, [&] { return node.granted || node.poisoned; });
  return node.granted ? Outcome::Granted : Outcome::Poisoned;
}

void Arbiter::release(PermitNode& node) noexcept {
  std::uintptr_t mine = reinterpret_cast<std::uintptr_t>(&node);
  if (word_.compare_exchange_strong(mine, 0, std::memory_order_release, std::memory_order_relaxed)) {
    node.granted = false;
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (node.granted && fast_holder_locked() == &node) {  // granted lock-free; a request came meanwhile
    word_.fetch_and(kSlow, std::memory_order_acq_rel);
    node.granted = false;
    grant_waiters_locked();
    settle_locked();
    return;
  }
  if (!node.granted || !granted_.contains(node)) {
    // A release of a permit the arbiter does not hold: its lists can no longer be trusted.
    poison_locked("permit arbiter: release of a permit that is not granted");
    return;
  }
  granted_.unlink(node);
  node.granted = false;
  grant_waiters_locked();
  settle_locked();
}

void Arbiter::settle_locked() {
  if (!poisoned_ && !granted_.head && !waiting_.head) word_.fetch_and(~kSlow, std::memory_order_acq_rel);
}

void Arbiter::grant_waiters_locked() {
  for (PermitNode* w = waiting_.head; w;) {
    PermitNode* next = w->next;
    if (!blocked_locked(*w, w)) {
      waiting_.unlink(*w);
      granted_.push_back(*w);
      w->granted = true;
      w->wake->notify_one();
    }
    w = next;
  }
}

void Arbiter::poison_locked(std::string reason) {
  poisoned_ = true;
  word_.fetch_or(kSlow, std::memory_order_acq_rel);  // for good: every request meets the poison
  poison_reason_ = std::move(reason);
  while (PermitNode* w = waiting_.head) {
    waiting_.unlink(*w);
    w->poisoned = true;
    w->wake->notify_one();
  }
}

bool Arbiter::poisoned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return poisoned_;
}

std::string Arbiter::poison_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return poison_reason_;
}

std::size_t Arbiter::granted_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return granted_.size() + (fast_holder_locked() ? 1 : 0);
}

std::size_t Arbiter::waiting_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size();
}

}  // namespace tfbench::impl

#include "arbiter_probe.hpp"

namespace tfbench::impl {
std::size_t arbiter_granted() {
  return Arbiter::instance().granted_count();
}
std::size_t arbiter_waiting() {
  return Arbiter::instance().waiting_count();
}
}  // namespace tfbench::impl
