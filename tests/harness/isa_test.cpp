// The instruction-set gate: which required extensions a host lacks, the refusal it then prints,
// which commands it refuses, that the required list is what the compiler was told, and that a run
// records the instruction sets in its result file (and an older file still reads).

#include "tfbench/harness/isa.hpp"
#include "isa/gate.hpp"
#include "result_fixtures.hpp"
#include "tfbench/harness/results.hpp"

#include <hdf5.h>
#include <catch2/catch.hpp>

#include <string>

using namespace tfbench::harness;
using namespace tfbench::harness::test;

namespace {

struct Missing {
  int count;
  std::string names;
};

Missing missing(const char* required, const char* supported) {
  char out[256];
  const int count = impl::isa_missing(required, supported, out, sizeof(out));
  return {count, out};
}

bool lists(const std::string& list, const std::string& name) {
  return ("," + list + ",").find("," + name + ",") != std::string::npos;
}

}  // namespace

TEST_CASE("the gate names every required extension the host lacks, and only those", "[isa]") {
  const Missing m = missing("sse3,avx2,avx512f,avx512vl,", "sse3,avx2,fma,");
  CHECK(m.count == 2);
  CHECK(m.names == "avx512f, avx512vl");
  CHECK(missing("sse3,avx2,", "avx2,sse3,fma,").count == 0);
  CHECK(missing("sse3,avx2,", "avx2,sse3,fma,").names.empty());
  CHECK(missing("", "sse3,").count == 0);
  // Names compare whole: a host with avx2 does not have avx, nor one with avx512fp16 avx512f.
  CHECK(missing("avx,avx512f,", "avx2,avx512fp16,").names == "avx, avx512f");
  CHECK(missing("avx2", "").names == "avx2");
  char small[8];
  CHECK(impl::isa_missing("avx512f,avx512vl,", "", small, sizeof(small)) == 2);
  CHECK(std::string(small) == "avx512f");  // truncated, still terminated
}

TEST_CASE("the refusal names what is missing, both CPUs and both ways out", "[isa]") {
  char text[2048];
  impl::isa_refusal_message("avx512f, avx512bw", "native (sapphirerapids)", "Intel(R) Xeon(R) Platinum 8480+",
                            "AMD EPYC 7763 64-Core Processor", text, sizeof(text));
  const std::string message = text;
  CHECK(message.rfind("tfbench: refusing to run: ", 0) == 0);
  CHECK(message.find("uses avx512f, avx512bw, which this CPU (\"AMD EPYC 7763 64-Core Processor\")") !=
        std::string::npos);
  CHECK(message.find("TFBENCH_ARCH=native (sapphirerapids) on a \"Intel(R) Xeon(R) Platinum 8480+\"") !=
        std::string::npos);
  CHECK(message.find("SIGILL") != std::string::npos);
  CHECK(message.find("rebuild on this node") != std::string::npos);
  CHECK(message.find("TFBENCH_ARCH=x86-64-v3 scripts/build.sh default") != std::string::npos);
  CHECK(message.find("TFBENCH_ALLOW_ISA_MISMATCH=1") != std::string::npos);
}

TEST_CASE("commands that run measured code are refused, the others warned", "[isa]") {
  CHECK(impl::isa_refuses("/opt/tfbench/bin/tfbench", "run"));
  CHECK(impl::isa_refuses("tfbench", "worker"));
  for (const char* other : {"list", "validate", "info", "compare", "merge", "report", "export"}) {
    INFO(other);
    CHECK_FALSE(impl::isa_refuses("build/default/harness/tfbench", other));
  }
  CHECK_FALSE(impl::isa_refuses("tfbench", nullptr));                     // --help
  CHECK(impl::isa_refuses("tests/harness/tfbench_isa_tests", "serial"));  // any other program
  CHECK(impl::kIsaMismatchExit == 4);
}

// This file gets the flags of all measured code, as required.cpp does: the list it compiles to here.
#define TFBENCH_ISA(name) name ","
#define TFBENCH_ISA_ALL 0
const char required_here[] = ""
#include "isa/features.inc"
    ;

TEST_CASE("the required list is what this build's flags let the compiler use", "[isa]") {
  const IsaInfo isa = isa_info();
  INFO("required: " << isa.required);
  CHECK(std::string(impl::isa_required_list) == required_here);
#if defined(__AVX2__)
  CHECK(lists(isa.required, "avx2"));  // and by the macro itself, not the list's mapping
#else
  CHECK_FALSE(lists(isa.required, "avx2"));
#endif
  CHECK_FALSE(isa.build_arch.empty());
  CHECK_FALSE(isa.build_host_cpu.empty());
  // The tests run where they were built: this host has what the code needs.
  CHECK(isa.missing.empty());
  if (isa.build_arch.rfind("native", 0) == 0) CHECK(isa.required == isa.build_host);
}

TEST_CASE("a run records the instruction sets; a file without them reads them empty", "[isa][results]") {
  const TempDir dir;
  const std::string path = dir.file("isa.h5");
  RunInfo run = info("run-isa");
  record_isa(run);
  CHECK_FALSE(run.build_arch.empty());
  CHECK_FALSE(run.run_isa.empty());
  CHECK(run.isa_mismatch.empty());
  {
    ResultsWriter w(path, false);
    w.begin_run(run);
    w.finish_run("complete", "2026-01-02T03:05:00Z");
  }
  const RunInfo back = read_results(path).runs.at(0).info;
  CHECK(back.build_cpu_model == run.build_cpu_model);
  CHECK(back.build_arch == run.build_arch);
  CHECK(back.build_isa == run.build_isa);
  CHECK(back.build_host_isa == run.build_host_isa);
  CHECK(back.run_isa == run.run_isa);
  CHECK(back.isa_mismatch.empty());

  // An older writer's file: none of the attributes.
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t group = H5Gopen2(file, "/runs/run-isa", H5P_DEFAULT);
  for (const char* name :
       {"build_cpu_model", "build_arch", "build_isa", "build_host_isa", "run_isa", "isa_mismatch"})
    CHECK(H5Adelete(group, name) >= 0);
  H5Gclose(group);
  H5Fclose(file);
  const RunInfo old = read_results(path).runs.at(0).info;
  CHECK(old.build_arch.empty());
  CHECK(old.run_isa.empty());
  CHECK(old.hostname == "node-7");
}
