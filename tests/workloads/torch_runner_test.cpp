// The torch runner: unavailable with a reason that says how to choose another Python, peer:torch
// listed (skipped with that reason) in both GPU families, and its numbers where torch answers.

#include <catch2/catch.hpp>

#include "peers/torch_runner.hpp"
#include "small_cases.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench;
using namespace tfbench::workloads;

namespace {
const char* const kScript = TFBENCH_SOURCE_DIR "/scripts/torch_peer.py";
}

TEST_CASE("a missing interpreter makes the torch peer unavailable, naming it and TFBENCH_TORCH_PYTHON",
          "[workloads]") {
  TorchRunner runner("/nonexistent/python3", kScript);
  const auto why = runner.unavailable();
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("/nonexistent/python3") && Catch::Contains("TFBENCH_TORCH_PYTHON"));
  CHECK(runner.provider(ExecSpaceKind::OpenMP) == "torch");
  CHECK(runner.unavailable_on(ExecSpaceKind::Cuda) == why);
}

TEST_CASE("a Python without torch makes the torch peer unavailable with the import error", "[workloads]") {
  TorchRunner runner(TFBENCH_PYTHON, kScript);
  const auto why = runner.unavailable();
  if (!why) {
    WARN(TFBENCH_PYTHON " has torch: nothing to check here");
    return;
  }
  CHECK_THAT(*why, Catch::StartsWith("torch peer: ") && Catch::Contains("torch cannot be imported") &&
                       Catch::Contains(TFBENCH_PYTHON) && Catch::Contains("TFBENCH_TORCH_PYTHON"));
}

TEST_CASE("versions are recorded as major * 100 + minor", "[workloads]") {
  CHECK(version_number("2.11.0+cu130") == 211);
  CHECK(version_number("13.0") == 1300);
  CHECK(version_number("3") == 300);
  CHECK(version_number("none") == 0);
  CHECK(version_number("") == 0);
}

TEST_CASE("peer:torch is a variant of packed_small and batched_solve, skipped with the runner's reason",
          "[workloads]") {
  using P = std::map<std::string, ParamValue>;
  const auto why = TorchRunner::get().unavailable_on(test::context_of_test().space);
  for (const char* family : {"packed_small", "batched_solve"}) {
    const Family* f = find_family(family);
    REQUIRE(f);
    const Params p(P{{"n", std::int64_t{3}}, {"batch", std::int64_t{5}}});
    int seen = 0;
    for (const auto& v : f->variants(p, test::context_of_test())) {
      if (v.name != "peer:torch") continue;
      ++seen;
      CHECK(v.kind == VariantKind::Peer);
      CHECK(v.unavailable == why);
      CHECK(v.provider.rfind("torch", 0) == 0);
    }
    CHECK(seen == 1);
    if (why) {
      CHECK_THROWS_WITH(f->instantiate(p, "peer:torch", test::context_of_test()), *why);
      continue;
    }
    auto torch = f->instantiate(p, "peer:torch", test::context_of_test());
    CHECK(torch->check().passed);
    torch->run();
    REQUIRE(torch->self_timed_seconds().has_value());
    CHECK(*torch->self_timed_seconds() > 0.0);
    const auto metrics = torch->metrics();
    CHECK(metrics.at("torch_version") >= 100);
    CHECK(metrics.at("torch_device_cuda") == (is_host_space(test::context_of_test().space) ? 0 : 1));
    CHECK(metrics.at("torch_threads") == metrics.at("torch_threads_requested"));
    CHECK(metrics.at("torch_threads_requested") == test::context_of_test().threads);
  }
}

TEST_CASE("torch serves a host-space case on the CPU and a device-space case only on a GPU", "[workloads]") {
  TorchRunner& runner = TorchRunner::get();
  if (const auto why = runner.unavailable()) {
    WARN("torch unavailable: " << *why);
    return;
  }
  // A host case's peer is a CPU peer beside a GPU too: a host row's fastest peer on the GPU would
  // compare the CPU backend with another machine.
  CHECK_FALSE(runner.unavailable_on(ExecSpaceKind::OpenMP));
  CHECK_THAT(runner.provider(ExecSpaceKind::OpenMP), Catch::Contains(" on cpu "));
  CHECK(runner.metrics(ExecSpaceKind::Serial).at("torch_device_cuda") == 0);
  const auto on_cuda = runner.unavailable_on(ExecSpaceKind::Cuda);
  if (runner.info().device.rfind("cuda", 0) == 0) {
    CHECK_FALSE(on_cuda);
    CHECK_THAT(runner.provider(ExecSpaceKind::Cuda), Catch::Contains(" on cuda:0 "));
  } else {
    REQUIRE(on_cuda);
    CHECK_THAT(*on_cuda, Catch::Contains("sees no CUDA device") && Catch::Contains("runs on cuda"));
    CHECK(runner.provider(ExecSpaceKind::Cuda) == "torch");
    RunContext cuda_case = test::context_of_test();
    cuda_case.space = ExecSpaceKind::Cuda;
    using P = std::map<std::string, ParamValue>;
    const Params p(P{{"n", std::int64_t{3}}, {"batch", std::int64_t{5}}});
    for (const auto& v : find_family("packed_small")->variants(p, cuda_case)) {
      if (v.name == "peer:torch") CHECK(v.unavailable == on_cuda);
    }
  }
}
