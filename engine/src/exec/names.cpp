// name() of every exec enum.

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/execution_context.hpp"
#include "tfbench/engine/exec/phase.hpp"
#include "tfbench/engine/exec/providers.hpp"
#include "tfbench/engine/exec/session_error.hpp"

namespace tfbench {

const char* name(SessionEntryErrorKind kind) {
  switch (kind) {
    case SessionEntryErrorKind::Reentered:
      return "reentered";
    case SessionEntryErrorKind::Contended:
      return "contended";
    case SessionEntryErrorKind::IncompatibleContext:
      return "incompatible-context";
    case SessionEntryErrorKind::ResourcePoisoned:
      return "resource-poisoned";
    case SessionEntryErrorKind::Executor:
      return "executor";
  }
  return "unknown";
}

const char* name(MemoryKind kind) {
  return kind == MemoryKind::Host ? "host" : "device";
}

const char* name(ProviderParallelism parallelism) {
  switch (parallelism) {
    case ProviderParallelism::Sequential:
      return "sequential";
    case ProviderParallelism::SamePool:
      return "same-pool";
    case ProviderParallelism::IndependentRuntime:
      return "independent-runtime";
  }
  return "unknown";
}

const char* name(ProviderSlot slot) {
  switch (slot) {
    case ProviderSlot::Gemm:
      return "gemm";
    case ProviderSlot::BatchedGemm:
      return "batched-gemm";
    case ProviderSlot::BatchedSolve:
      return "batched-solve";
    case ProviderSlot::Contraction:
      return "contraction";
  }
  return "unknown";
}

const char* name(BatchStrategy strategy) {
  switch (strategy) {
    case BatchStrategy::Auto:
      return "auto";
    case BatchStrategy::Sequential:
      return "sequential";
    case BatchStrategy::OuterParallel:
      return "outer-parallel";
    case BatchStrategy::ProviderItems:
      return "provider-items";
    case BatchStrategy::WholeBatchVendor:
      return "whole-batch-vendor";
  }
  return "unknown";
}

const char* name(RouteErrorKind kind) {
  switch (kind) {
    case RouteErrorKind::InvalidProblem:
      return "invalid-problem";
    case RouteErrorKind::InvalidPolicy:
      return "invalid-policy";
    case RouteErrorKind::NoCandidates:
      return "no-candidates";
    case RouteErrorKind::NoRoute:
      return "no-route";
    case RouteErrorKind::CannotFanOut:
      return "cannot-fan-out";
    case RouteErrorKind::IndependentRuntimeInFanOut:
      return "independent-runtime-in-fan-out";
    case RouteErrorKind::NotConcurrentCallSafe:
      return "not-concurrent-call-safe";
    case RouteErrorKind::ProviderNotSequential:
      return "provider-not-sequential";
    case RouteErrorKind::NoPerItemProvider:
      return "no-per-item-provider";
    case RouteErrorKind::NoWholeBatchProvider:
      return "no-whole-batch-provider";
    case RouteErrorKind::WholeBatchInFanOut:
      return "whole-batch-in-fan-out";
    case RouteErrorKind::WrongThread:
      return "wrong-thread";
    case RouteErrorKind::LaneEntryFailed:
      return "lane-entry-failed";
  }
  return "unknown";
}

const char* name(BackendErrorKind kind) {
  switch (kind) {
    case BackendErrorKind::InvalidConfig:
      return "invalid-config";
    case BackendErrorKind::SpaceNotEnabled:
      return "space-not-enabled";
    case BackendErrorKind::NotInitialized:
      return "not-initialized";
  }
  return "unknown";
}

const char* name(Admission admission) {
  return admission == Admission::Queue ? "queue" : "caller-managed";
}

const char* name(NativeAccessError error) {
  switch (error) {
    case NativeAccessError::NoToken:
      return "no-token";
    case NativeAccessError::ForeignBackend:
      return "foreign-backend";
    case NativeAccessError::WrongThread:
      return "wrong-thread";
    case NativeAccessError::Expired:
      return "expired";
  }
  return "unknown";
}

const char* name(PhaseErrorKind kind) {
  switch (kind) {
    case PhaseErrorKind::NotHeld:
      return "not-held";
    case PhaseErrorKind::WorkerOfTargetPool:
      return "worker-of-target-pool";
    case PhaseErrorKind::WrongThread:
      return "wrong-thread";
    case PhaseErrorKind::PhaseActive:
      return "phase-active";
  }
  return "unknown";
}

}  // namespace tfbench
