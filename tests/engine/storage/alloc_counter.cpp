// Test-only replacement of every global operator new/delete: counts allocations, forwards to malloc.
#include "alloc_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::uint64_t> g_allocations{0};

void* counted_alloc(std::size_t bytes) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(bytes ? bytes : 1);
}
void* counted_aligned_alloc(std::size_t bytes, std::align_val_t align) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  const std::size_t a =
      static_cast<std::size_t>(align) < sizeof(void*) ? sizeof(void*) : static_cast<std::size_t>(align);
  return posix_memalign(&p, a, bytes ? bytes : 1) == 0 ? p : nullptr;
}
// nvcc compiles these replacements for the device as well, where exceptions do not exist; only the
// host pass (no __CUDA_ARCH__) throws. The device pass is never called.
#if defined(__CUDA_ARCH__)
#define TFBENCH_BAD_ALLOC() return nullptr
#else
#define TFBENCH_BAD_ALLOC() throw std::bad_alloc()
#endif
}  // namespace

// nvcc takes the replacements for __host__ __device__ and warns (#20011) that they call the host
// allocators above, which is what they are for.
#if defined(__NVCC__)
#pragma nv_diag_suppress 20011
#endif

namespace tfbench::testing {
std::uint64_t heap_allocations() noexcept {
  return g_allocations.load(std::memory_order_relaxed);
}
}  // namespace tfbench::testing

void* operator new(std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  TFBENCH_BAD_ALLOC();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_alloc(n)) return p;
  TFBENCH_BAD_ALLOC();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_alloc(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = counted_aligned_alloc(n, a)) return p;
  TFBENCH_BAD_ALLOC();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = counted_aligned_alloc(n, a)) return p;
  TFBENCH_BAD_ALLOC();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(n, a);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
