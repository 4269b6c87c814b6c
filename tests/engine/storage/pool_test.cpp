// Pools (and the storage half of leases): statistics, size classes, recycle exactly once, pool destroyed
// before its blocks, configure/clear, concurrent checkouts, and publishing initialized leases.
#include <catch2/catch.hpp>

#include <cstdint>
#include <thread>
#include <vector>

#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

TEST_CASE("size classes: 64-byte steps up to 4 KiB, then four per doubling", "[storage][pool]") {
  CHECK(HostPool::size_class(0) == 0);
  CHECK(HostPool::size_class(1) == 64);
  CHECK(HostPool::size_class(64) == 64);
  CHECK(HostPool::size_class(65) == 128);
  CHECK(HostPool::size_class(4096) == 4096);
  CHECK(HostPool::size_class(4097) == 5120);
  CHECK(HostPool::size_class(8192) == 8192);
  CHECK(HostPool::size_class(10000) == 10240);
  CHECK(HostPool::size_class(std::size_t{1} << 40) == std::size_t{1} << 40);
  CHECK(HostPool::size_class(~std::size_t{0}) == 0);
  for (std::size_t b = 1; b < (std::size_t{1} << 22); b = b * 3 + 1) {
    const std::size_t c = HostPool::size_class(b);
    CHECK(c >= b);
    CHECK(c % 64 == 0);
    CHECK(static_cast<double>(c - b) <= 0.25 * static_cast<double>(b) + 64);
  }
}

TEST_CASE("checkout statistics: misses, hits, releases, bytes", "[storage][pool]") {
  auto pool = HostPool::create();
  {
    auto a = pool->checkout(100);
    CHECK(a.bytes() == 100);
    CHECK(a.capacity_bytes() == 128);
    CHECK_FALSE(a.was_pool_hit());
    CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
    auto s = pool->stats();
    CHECK(s.misses == 1);
    CHECK(s.hits == 0);
    CHECK(s.bytes_live == 128);
    CHECK(s.checkouts_outstanding == 1);
  }
  auto s = pool->stats();
  CHECK(s.releases == 1);
  CHECK(s.bytes_live == 0);
  CHECK(s.bytes_cached == 128);
  CHECK(s.blocks_cached == 1);
  CHECK(s.checkouts_outstanding == 0);

  auto b = pool->checkout(120);  // same class: reused
  CHECK(b.was_pool_hit());
  auto c = pool->checkout(1000);  // another class
  CHECK_FALSE(c.was_pool_hit());
  s = pool->stats();
  CHECK(s.hits == 1);
  CHECK(s.misses == 2);
  CHECK(s.bytes_cached == 0);
  CHECK(s.bytes_live == 128 + 1024);
  CHECK(s.checkouts_outstanding == 2);

  auto empty = pool->checkout(0);
  CHECK_FALSE(empty);
  CHECK(pool->stats().checkouts_outstanding == 2);
}

TEST_CASE("a block returns to its pool exactly once", "[storage][pool]") {
  auto pool = HostPool::create();
  auto a = pool->checkout(256);
  void* data = a.data();
  PooledBlock<Kokkos::HostSpace> b = std::move(a);  // moving moves the authority
  CHECK_FALSE(a);
  PooledBlock<Kokkos::HostSpace> c;
  c = std::move(b);
  CHECK(c.data() == data);
  c.reset();
  c.reset();
  a.reset();
  b.reset();
  auto s = pool->stats();
  CHECK(s.releases == 1);
  CHECK(s.blocks_cached == 1);
  auto again = pool->checkout(256);
  CHECK(again.was_pool_hit());
  CHECK(again.data() == data);
}

TEST_CASE("the pool may be destroyed before its blocks and tensors", "[storage][pool]") {
  const auto orphans = impl::orphan_block_frees();
  auto pool = HostPool::create();
  auto block = pool->checkout(512);
  auto tensor = Tensor<double, DynRank, Host>::zeros({4, 4}, pool);
  CHECK(tensor.allocation_kind() == AllocationKind::Pooled);
  CHECK(tensor.at(3, 3) == 0.0);
  tensor.at(3, 3) = 2.0;
  auto dpool = DevicePool::create();
  auto dtensor = Tensor<float, DynRank, Device>::zeros({8}, dpool);
  CHECK(dtensor.allocation_kind() == AllocationKind::Pooled);
  CHECK(dpool->stats().checkouts_outstanding == 1);

  pool.reset();  // last pool handle gone: the blocks outlive it
  dpool.reset();
  CHECK(tensor.at(3, 3) == 2.0);
  CHECK(download(dtensor).at(7) == 0.0f);
  CHECK(impl::orphan_block_frees() == orphans);
  block.reset();
  CHECK(impl::orphan_block_frees() == orphans + 1);
  block.reset();
  { auto gone = std::move(tensor); }
  { auto gone = std::move(dtensor); }
  CHECK(impl::orphan_block_frees() == orphans + 3);
}

TEST_CASE("configure bounds the cache; clear empties it", "[storage][pool]") {
  auto pool = HostPool::create(PoolConfig{1024});
  {
    auto a = pool->checkout(512);
    auto b = pool->checkout(512);
    auto c = pool->checkout(512);
  }
  auto s = pool->stats();
  CHECK(s.releases == 3);
  CHECK(s.blocks_cached == 2);  // the third release would exceed 1024 bytes: freed
  CHECK(s.frees == 1);
  CHECK(s.bytes_cached == 1024);

  pool->configure(PoolConfig{512});
  s = pool->stats();
  CHECK(pool->config().max_cached_bytes == 512);
  CHECK(s.bytes_cached == 512);
  CHECK(s.frees == 2);

  pool->clear();
  s = pool->stats();
  CHECK(s.bytes_cached == 0);
  CHECK(s.blocks_cached == 0);
  CHECK(s.frees == 3);
  CHECK_FALSE(pool->checkout(512).was_pool_hit());
}

TEST_CASE("concurrent checkouts keep consistent accounting", "[storage][pool]") {
  auto pool = HostPool::create();
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([pool, t] {
      for (int i = 0; i < kRounds; ++i) {
        auto a = pool->checkout(64 * static_cast<std::size_t>(1 + (i + t) % 5));
        auto b = pool->checkout(8192);
        static_cast<unsigned char*>(a.data())[0] = 1;
        static_cast<unsigned char*>(b.data())[8191] = 2;
      }
    });
  for (auto& th : threads) th.join();
  const auto s = pool->stats();
  CHECK(s.hits + s.misses == 2u * kThreads * kRounds);
  CHECK(s.releases == 2u * kThreads * kRounds);
  CHECK(s.checkouts_outstanding == 0);
  CHECK(s.bytes_live == 0);
  CHECK(s.misses <= 2u * kThreads * 5);
}

TEST_CASE("adopt_initialized publishes a fully written lease as a pooled tensor", "[storage][pool][lease]") {
  auto pool = HostPool::create();
  {
    auto block = pool->checkout(6 * sizeof(double));
    auto* out = static_cast<double*>(block.data());
    for (int i = 0; i < 6; ++i) out[i] = i + 1;  // every element initialized before publication
    auto t = impl::adopt_initialized<double, Host>(std::move(block), {2, 3});
    CHECK(t.allocation_kind() == AllocationKind::Pooled);
    CHECK(t.at(1, 2) == 6);
    CHECK(pool->stats().checkouts_outstanding == 1);
  }
  CHECK(pool->stats().releases == 1);

  auto small = pool->checkout(8);
  try {
    (void)impl::adopt_initialized<double, Host>(std::move(small), {2});
    FAIL("expected BlockTooSmall");
  } catch (const StorageError& e) {
    CHECK(e.code() == StorageErrc::BlockTooSmall);
  }
  CHECK(small);  // a rejected lease stays with the caller

  auto dpool = DevicePool::create();
  auto dblock = dpool->checkout(4 * sizeof(float));
  impl::fill_zero(DeviceExecSpace(), static_cast<float*>(dblock.data()), 4);
  DeviceExecSpace().fence();
  auto d = impl::adopt_initialized<float, Device, Rank<1>>(std::move(dblock), {4});
  CHECK(d.space() == MemorySpaceKind::Device);
  CHECK(download(d).at(2) == 0.0f);

  // A std::array shape deduces the static rank.
  auto hblock = pool->checkout(4 * sizeof(int));
  for (int i = 0; i < 4; ++i) static_cast<int*>(hblock.data())[i] = i;
  Tensor<int, Rank<2>, Host> fixed =
      impl::adopt_initialized<int, Host>(std::move(hblock), std::array<Index, 2>{2, 2});
  CHECK(fixed.at(1, 1) == 3);
}
