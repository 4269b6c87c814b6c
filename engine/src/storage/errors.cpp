#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/storage/error.hpp"

namespace tfbench {

const char* name(StorageErrc code) {
  switch (code) {
    case StorageErrc::NegativeExtent:
      return "negative_extent";
    case StorageErrc::SizeOverflow:
      return "size_overflow";
    case StorageErrc::LengthMismatch:
      return "length_mismatch";
    case StorageErrc::RankMismatch:
      return "rank_mismatch";
    case StorageErrc::IndexOutOfBounds:
      return "index_out_of_bounds";
    case StorageErrc::OutOfBounds:
      return "out_of_bounds";
    case StorageErrc::OffsetOverflow:
      return "offset_overflow";
    case StorageErrc::Overlapping:
      return "overlapping";
    case StorageErrc::NotCompact:
      return "not_compact";
    case StorageErrc::InvalidPermutation:
      return "invalid_permutation";
    case StorageErrc::InvalidDimension:
      return "invalid_dimension";
    case StorageErrc::InvalidRange:
      return "invalid_range";
    case StorageErrc::ZeroStep:
      return "zero_step";
    case StorageErrc::ElementCountMismatch:
      return "element_count_mismatch";
    case StorageErrc::DTypeMismatch:
      return "dtype_mismatch";
    case StorageErrc::Misaligned:
      return "misaligned";
    case StorageErrc::BlockTooSmall:
      return "block_too_small";
    case StorageErrc::WrongSpace:
      return "wrong_space";
    case StorageErrc::NullData:
      return "null_data";
    case StorageErrc::MissingDeleter:
      return "missing_deleter";
    case StorageErrc::MappingClosed:
      return "mapping_closed";
    case StorageErrc::NegativeStride:
      return "negative_stride";
  }
  return "unknown";
}

StorageError::StorageError(StorageErrc code, const std::string& message)
    : std::invalid_argument(message), code_(code) {}

namespace impl {

void throw_storage_error(StorageErrc code, const char* where, const std::string& why) {
  throw StorageError(code, std::string("tfbench::storage: ") + where + ": " + why + " [" + name(code) + "]");
}

void throw_dtype_mismatch(DType actual, DType requested, const char* where) {
  throw_storage_error(StorageErrc::DTypeMismatch, where,
                      std::string("the tensor holds ") + name(actual) + ", not " + name(requested));
}

}  // namespace impl
}  // namespace tfbench
