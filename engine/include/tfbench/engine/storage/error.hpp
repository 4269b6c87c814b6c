#pragma once
// Typed storage errors: every rejected shape, layout, index, conversion or lease says which rule it
// broke (StorageErrc) and where/why (the message).

#include <stdexcept>
#include <string>

namespace tfbench {

enum class StorageErrc {
  NegativeExtent,        // an extent below zero
  SizeOverflow,          // element or byte count does not fit Index / size_t
  LengthMismatch,        // data length differs from the product of the shape
  RankMismatch,          // index/permutation/shape rank differs from the tensor's rank
  IndexOutOfBounds,      // at(): an index outside [0, extent)
  OutOfBounds,           // a layout reaches elements outside its allocation window
  OffsetOverflow,        // checked signed offset/stride arithmetic overflowed
  Overlapping,           // a mutable layout maps two indices to one element (not injective)
  NotCompact,            // reshape/as_slice of data that is not compact column-major
  InvalidPermutation,    // permute() with a repeated or out-of-range axis
  InvalidDimension,      // a dimension argument >= rank
  InvalidRange,          // slice() begin/end outside the extent or in the wrong order
  ZeroStep,              // slice() with step 0
  ElementCountMismatch,  // reshape() to a different number of elements
  DTypeMismatch,         // typed access to an erased tensor of another dtype
  Misaligned,            // a pointer not aligned for the element type
  BlockTooSmall,         // a pooled block with fewer bytes than the tensor needs
  WrongSpace,            // an operand in the wrong memory space for this operation
  NullData,              // from_managed() with null data for a non-empty shape
  MissingDeleter,        // from_managed() without a deleter
  MappingClosed,         // a write mapping used after finish()
  NegativeStride,  // a Kokkos::View bridge of a layout with a negative stride (LayoutStride is unsigned)
};

const char* name(StorageErrc code);

/// Thrown by storage operations that reject their input; code() says which rule.
class StorageError : public std::invalid_argument {
 public:
  StorageError(StorageErrc code, const std::string& message);
  StorageErrc code() const noexcept { return code_; }

 private:
  StorageErrc code_;
};

namespace impl {
/// Throws StorageError(code, "tfbench::storage: <where>: <why>").
[[noreturn]] void throw_storage_error(StorageErrc code, const char* where, const std::string& why);
}  // namespace impl

}  // namespace tfbench
