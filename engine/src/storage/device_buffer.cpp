#include "tfbench/engine/storage/impl/device_buffer.hpp"

#include <string>

namespace tfbench::impl {

KokkosBlock::KokkosBlock(std::size_t bytes, const char* label) {
  if (bytes > 0) data_ = Kokkos::kokkos_malloc<DeviceMemorySpace>(std::string(label), bytes);
}

KokkosBlock& KokkosBlock::operator=(KokkosBlock&& other) noexcept {
  if (this != &other) {
    if (data_) Kokkos::kokkos_free<DeviceMemorySpace>(data_);
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

KokkosBlock::~KokkosBlock() {
  if (data_) Kokkos::kokkos_free<DeviceMemorySpace>(data_);
}

}  // namespace tfbench::impl
