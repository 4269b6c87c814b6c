#pragma once
// Small cases of every family: each runs its variants' checks in well under a second.

#include "test_context.hpp"
#include "tfbench/workloads/family.hpp"

#include <map>
#include <string>
#include <vector>

namespace tfbench::workloads::test {

/// Small parameter sets per family name (several per family where a parameter changes the route).
inline std::map<std::string, std::vector<Params>> small_cases() {
  using P = std::map<std::string, ParamValue>;
  std::map<std::string, std::vector<Params>> cases;
  cases["packed_small"] = {
      Params(P{{"n", std::int64_t{2}}, {"batch", std::int64_t{7}}}),
      Params(P{{"n", std::int64_t{5}}, {"batch", std::int64_t{33}}, {"layout", std::string("strided")}}),
      Params(P{{"n", std::int64_t{8}}, {"batch", std::int64_t{16}}, {"dtype", std::string("float32")}}),
      Params(P{{"n", std::int64_t{16}}, {"working_set_mib", 0.25}}),
      Params(P{{"n", std::int64_t{32}},
               {"batch", std::int64_t{3}},
               {"layout", std::string("strided")},
               {"pad", std::int64_t{1}}}),
  };
  cases["batched_solve"] = {
      Params(P{{"n", std::int64_t{2}}, {"batch", std::int64_t{9}}}),
      Params(P{{"n", std::int64_t{7}}, {"nrhs", std::int64_t{3}}, {"batch", std::int64_t{20}}}),
      Params(P{{"n", std::int64_t{32}},
               {"nrhs", std::int64_t{2}},
               {"batch", std::int64_t{5}},
               {"dtype", std::string("float32")}}),
  };
  cases["contraction_replay"] = {
      Params(P{{"kind", std::string("binary")},
               {"keys", std::string("fresh")},
               {"size", std::int64_t{4}},
               {"calls", std::int64_t{40}}}),
      Params(P{{"kind", std::string("nary")},
               {"keys", std::string("fresh")},
               {"size", std::int64_t{3}},
               {"calls", std::int64_t{40}}}),
      Params(P{{"kind", std::string("binary")}, {"keys", std::string("mixed")}, {"size", std::int64_t{5}}}),
      Params(P{{"kind", std::string("nary")}, {"keys", std::string("fixed")}, {"size", std::int64_t{6}}}),
  };
  cases["resident_chain"] = {
      Params(P{{"n", std::int64_t{9}}, {"steps", std::int64_t{3}}}),
      Params(P{{"n", std::int64_t{32}}, {"steps", std::int64_t{1}}}),
  };
  cases["resource_churn"] = {
      Params(P{{"min_kib", 1.0},
               {"max_kib", 256.0},
               {"sizes", std::int64_t{5}},
               {"ops", std::int64_t{12}},
               {"live", std::int64_t{3}}}),
      Params(P{{"min_kib", 8.0},
               {"max_kib", 8.0},
               {"sizes", std::int64_t{1}},
               {"ops", std::int64_t{3}},
               {"live", std::int64_t{1}}}),
  };
  cases["session_overhead"] = {
      Params(P{{"op", std::string("empty")}, {"repeat", std::int64_t{10}}}),
      Params(P{{"op", std::string("phase")}, {"elements", std::int64_t{1001}}}),
      Params(P{
          {"op", std::string("chain")}, {"elements", std::int64_t{777}}, {"chain_length", std::int64_t{3}}}),
  };
  cases["ad"] = {
      Params(P{{"kind", std::string("chain")}, {"n", std::int64_t{8}}, {"depth", std::int64_t{3}}}),
      Params(P{{"kind", std::string("chain")}, {"pass", std::string("forward")}, {"n", std::int64_t{5}}}),
      Params(P{{"kind", std::string("solve")}, {"n", std::int64_t{9}}, {"nrhs", std::int64_t{2}}}),
      Params(P{{"kind", std::string("solve")}, {"pass", std::string("forward")}, {"n", std::int64_t{4}}}),
  };
  cases["compute_control"] = {
      Params(P{{"n", std::int64_t{64}}}),
      Params(P{{"n", std::int64_t{40}},
               {"m", std::int64_t{33}},
               {"k", std::int64_t{17}},
               {"dtype", std::string("float32")}}),
  };
  cases["bandwidth_control"] = {Params(P{{"elements", std::int64_t{4096}}})};
  return cases;
}

inline RunContext context_of_test() {
  RunContext ctx;
  ctx.space = tfbench::testing::space();
  ctx.threads = tfbench::testing::threads();
  ctx.seed = 20261129;
  return ctx;
}

/// The test's context for `family`: a host-only family (Family::host_only) runs on Serial when the
/// test runs on a device space, whose variants it does not have.
inline RunContext context_for(const Family& family) {
  RunContext ctx = context_of_test();
  if (family.host_only() && !tfbench::is_host_space(ctx.space)) {
    ctx.space = tfbench::ExecSpaceKind::Serial;
    ctx.threads = 1;
  }
  return ctx;
}

}  // namespace tfbench::workloads::test
