#pragma once
// The process-wide permit arbiter. A permit request claims a CPU set (and the OpenMP pool or a device
// when its kernels need them); requests that overlap are serialized, FIFO across threads. A request
// is granted at once only if it overlaps neither a granted permit nor an earlier waiter, so a waiter
// is never overtaken by a later overlapping request. Lock order: a thread holding a permit never waits
// here (session entry rejects it with Reentered first), so waiters hold nothing and cannot form a
// cycle. Nodes live on the requesting thread's stack: no allocation.

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>

#include "tfbench/engine/exec/cpu_set.hpp"

namespace tfbench::impl {

struct Claim {
  CpuSet cpus;
  bool openmp_pool = false;  // forks the Kokkos OpenMP pool (one per process)
  int device = -1;           // a device ordinal whose queue the session drives, or -1
};

bool conflicts(const Claim& a, const Claim& b);

struct PermitNode {
  const Claim* claim = nullptr;
  bool no_wait = false;  // caller-managed: Contended instead of queueing
  bool granted = false;
  bool poisoned = false;
  std::condition_variable* wake = nullptr;
  PermitNode* prev = nullptr;
  PermitNode* next = nullptr;
};

class Arbiter {
 public:
  enum class Outcome { Granted, Contended, Poisoned };

  static Arbiter& instance();

  /// Grants node, queues and waits for it (FIFO), or reports Contended (no_wait) / Poisoned.
  Outcome acquire(PermitNode& node);
  /// Releases a granted node and grants the waiters it unblocks, in queue order.
  void release(PermitNode& node) noexcept;

  bool poisoned() const;
  std::string poison_reason() const;
  /// Current counts, for tests and diagnostics.
  std::size_t granted_count() const;
  std::size_t waiting_count() const;

 private:
  struct List {
    PermitNode* head = nullptr;
    PermitNode* tail = nullptr;
    void push_back(PermitNode& node);
    void unlink(PermitNode& node);
    bool contains(const PermitNode& node) const;
    std::size_t size() const;
  };
  bool blocked_locked(const PermitNode& node, const PermitNode* stop_at) const;
  void grant_waiters_locked();
  void poison_locked(std::string reason);

  mutable std::mutex mutex_;
  List granted_;
  List waiting_;
  bool poisoned_ = false;
  std::string poison_reason_;
};

}  // namespace tfbench::impl
