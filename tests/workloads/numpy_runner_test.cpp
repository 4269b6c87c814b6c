// The NumPy runner: protocol round trips, thread setting verified, and unavailability with reasons.

#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "peers/numpy_runner.hpp"
#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;

TEST_CASE("a missing interpreter or script makes the NumPy peer unavailable with a reason", "[workloads]") {
  NumpyRunner no_python("/nonexistent/python3", TFBENCH_SOURCE_DIR "/scripts/numpy_peer.py");
  const auto why = no_python.unavailable();
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("/nonexistent/python3"));

  NumpyRunner no_script("/usr/bin/python3", "/nonexistent/numpy_peer.py");
  const auto why2 = no_script.unavailable();
  REQUIRE(why2);
  CHECK_THAT(*why2, Catch::Contains("/nonexistent/numpy_peer.py"));
}

TEST_CASE("the NumPy runner answers, sets and verifies its BLAS threads", "[workloads]") {
  auto& runner = NumpyRunner::get();
  if (const auto why = runner.unavailable()) {
    WARN("NumPy unavailable: " << *why);
    return;
  }
  const NumpyInfo info = runner.info();
  CHECK_FALSE(info.numpy_version.empty());
  CHECK(runner.set_threads(1) == 1);
  CHECK_THROWS_WITH(runner.request("bogus"), Catch::Contains("unknown command"));
  // The runner stays usable after an error reply.
  CHECK(runner.set_threads(1) == 1);
}

TEST_CASE("the NumPy runner inherits no descriptor of the process that started it", "[workloads]") {
  // A descriptor left open across exec (as the worker's message pipe is, dup2'd to 3): the runner
  // holding its write end would keep the reader from seeing the end of the stream.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  NumpyRunner runner("/usr/bin/python3", TFBENCH_SOURCE_DIR "/scripts/numpy_peer.py");
  const auto why = runner.unavailable();  // starts the runner's process
  close(fds[1]);
  if (why) {
    close(fds[0]);
    WARN("NumPy unavailable: " << *why);
    return;
  }
  pollfd reader{fds[0], POLLIN, 0};
  REQUIRE(poll(&reader, 1, 0) == 1);
  CHECK((reader.revents & POLLHUP) != 0);  // no other process holds the write end
  close(fds[0]);
}

TEST_CASE("an operand file without room in its directory is an error, and the next directory takes it",
          "[workloads]") {
  char dir[] = "/tmp/tfbench-shm-test-XXXXXX";
  REQUIRE(mkdtemp(dir));
  {
    SharedFile file(4096, "test", {"/nonexistent-tfbench-dir", dir});
    CHECK(file.path().rfind(std::string(dir) + "/tfbench-test-", 0) == 0);
    static_cast<char*>(file.data())[4095] = 1;
  }
  rmdir(dir);

  // A tmpfs refuses to reserve more than its size at once, without filling itself first. Merely
  // truncated, the file would map, and the first write past the room would be a SIGBUS.
  struct statfs shm {};
  constexpr long kTmpfsMagic = 0x01021994;
  if (statfs("/dev/shm", &shm) != 0 || shm.f_type != kTmpfsMagic || shm.f_blocks == 0 ||
      access("/dev/shm", W_OK) != 0) {
    WARN("/dev/shm is not a sized, writable tmpfs here");
    return;
  }
  const std::size_t too_big =
      static_cast<std::size_t>(shm.f_blocks) * static_cast<std::size_t>(shm.f_bsize) + (1u << 20);
  CHECK_THROWS_WITH(SharedFile(too_big, "test", {"/dev/shm"}),
                    Catch::Contains("/dev/shm: reserving") && Catch::Contains("No space left"));
}

namespace {
/// This process's mappings of NumPy operand files, `named` ones (the file still has its name) or
/// unlinked ones. Scoped to this process: a global count of /dev/shm raced with the NumPy peers of
/// test binaries running beside this one (ctest -j), whose files came and went between two counts.
int mapped_operand_files(bool named) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/tfbench-numpy-") == std::string::npos) continue;
    n += (line.find("(deleted)") == std::string::npos) == named;
  }
  return n;
}
}  // namespace

TEST_CASE("NumPy operand files leave no name behind once Python mapped them", "[workloads]") {
  if (NumpyRunner::get().unavailable()) return;
  using P = std::map<std::string, ParamValue>;
  auto numpy = find_family("packed_small")
                   ->instantiate(Params(P{{"n", std::int64_t{3}}, {"batch", std::int64_t{5}}}), "peer:numpy",
                                 test::context_of_test());
  CHECK(mapped_operand_files(false) >= 1);  // the operands stay mapped ...
  CHECK(mapped_operand_files(true) == 0);   // ... under no name
  CHECK(numpy->check().passed);
  numpy->run();
  REQUIRE(numpy->self_timed_seconds().has_value());
  CHECK(*numpy->self_timed_seconds() > 0.0);
}

TEST_CASE("a peer without an instantiation for its size says why", "[workloads]") {
  using P = std::map<std::string, ParamValue>;
  const Family* packed = find_family("packed_small");
  REQUIRE(packed);
  const Params p(P{{"n", std::int64_t{31}}, {"batch", std::int64_t{4}}});
  bool seen = false;
  for (const auto& v : packed->variants(p, test::context_of_test())) {
    if (v.name != "peer:eigen") continue;
    seen = true;
    REQUIRE(v.unavailable);
    CHECK_THAT(*v.unavailable, Catch::Contains("n = 31"));
  }
  CHECK(seen);
  CHECK_THROWS_AS(packed->instantiate(p, "peer:eigen", test::context_of_test()), WorkloadError);
}
