#pragma once
// Typed failure of a consuming conversion: the cause and the unchanged source, so a failed
// into_host()/into_device()/into_rank<N>()/reshape() never destroys its input.

#include <string>
#include <utility>

namespace tfbench {

enum class ConversionCause {
  NotHostResident,       // into_host() of a Dynamic tensor whose elements live in device memory
  NotDeviceResident,     // into_device() of a Dynamic tensor whose elements live in host memory
  RankMismatch,          // into_rank<N>() of a tensor of another rank
  ElementCountMismatch,  // reshape() to a shape with another element count
  NotCompact,            // reshape() of a view that is not compact column-major
};

const char* name(ConversionCause cause);

template <class Source>
struct ConversionFailure {
  ConversionCause cause;
  Source source;       // the input, unchanged
  std::string detail;  // where and why

  std::string message() const { return std::string(name(cause)) + ": " + detail; }
};

/// The failure of representation narrowing (into_host / into_device).
template <class Source>
using NarrowingFailure = ConversionFailure<Source>;

}  // namespace tfbench
