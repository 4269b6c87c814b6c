// The HDF5 result file: writer/reader round trip, appends visible after each flush, bad files
// refused with a reason, and merge keeping every run and its provenance.

#include "tfbench/harness/results.hpp"
#include "result_fixtures.hpp"
#include "results/hdf5_util.hpp"

#include <hdf5.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

using namespace tfbench::harness;
using namespace tfbench::harness::test;
namespace fs = std::filesystem;

TEST_CASE("a written run reads back field by field", "[results]") {
  TempDir dir;
  const std::string path = dir.file("sub/dir/run.h5");  // directories are created
  {
    ResultsWriter w(path, false);
    w.begin_run(info("run-a"));
    WorkerRow worker;
    worker.threads = 2;
    worker.exec_space = "openmp";
    worker.kokkos_threads = 2;
    worker.pid = 1234;
    worker.device = "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)";
    const std::size_t index = w.append_worker(worker);
    worker.exit = "signal 11 (SIGSEGV)";
    worker.ceiling_gbs = 18.5;
    w.update_worker(index, worker);
    std::vector<ResultRow> rows = {result("peer:a", {1.0, 2.0, 3.0}), result("peer:b", {4.0})};
    w.append_results(rows);
    CHECK(rows[0].sample_offset == 0);
    CHECK(rows[1].sample_offset == 3);
    CHECK(rows[1].sample_count == 1);
    // Readable while the writer is still open: every append is flushed.
    std::vector<ResultRow> more = {result("peer:c", {})};
    more[0].status = RowStatus::Crashed;
    w.append_results(more);
    w.finish_run("complete", "2026-01-02T03:05:00Z");
  }
  const ResultsFile f = read_results(path);
  CHECK(f.schema_version == 1);
  REQUIRE(f.runs.size() == 1);
  const RunData& run = f.runs[0];
  CHECK(run.info.run_id == "run-a");
  CHECK(run.info.status == "complete");
  CHECK(run.info.end_utc == "2026-01-02T03:05:00Z");
  CHECK(run.info.hostname == "node-7");
  CHECK(run.info.seed == 42);
  CHECK(run.info.min_time_default == 0.05);
  CHECK(run.info.config_texts == info("x").config_texts);
  REQUIRE(run.workers.size() == 1);
  CHECK(run.workers[0].exit == "signal 11 (SIGSEGV)");
  CHECK(run.workers[0].pid == 1234);
  CHECK(run.workers[0].device == "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)");
  CHECK(run.workers[0].ceiling_gbs == 18.5);
  CHECK(std::isnan(run.workers[0].ceiling_gflops));
  REQUIRE(run.results.size() == 3);
  CHECK(run.results[0].samples == std::vector<double>{1.0, 2.0, 3.0});
  CHECK(run.results[1].samples == std::vector<double>{4.0});
  CHECK(run.results[1].error == "naïve ✓");
  CHECK(run.results[1].metrics == "{\"hits\":3}");
  CHECK(run.results[0].threads == 2);
  CHECK(run.results[0].median_s == 1.5);
  CHECK(std::isnan(run.results[0].gflops));
  CHECK(run.results[2].status == RowStatus::Crashed);
  CHECK(run.results[2].samples.empty());
}

TEST_CASE("an existing output is refused unless overwriting", "[results]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  { ResultsWriter w(path, false); }
  CHECK_THROWS_AS(ResultsWriter(path, false), ResultsError);
  CHECK_NOTHROW(ResultsWriter(path, true));
}

TEST_CASE("unusable files are refused with the reason", "[results]") {
  TempDir dir;
  CHECK_THROWS_WITH(read_results(dir.file("missing.h5")), Catch::Contains("no such file"));
  const std::string text = dir.file("text.h5");
  std::ofstream(text) << "not hdf5";
  CHECK_THROWS_WITH(read_results(text), Catch::Contains("is not an HDF5 file"));
}

TEST_CASE("merge copies every run, renames colliding ids and keeps provenance", "[results][merge]") {
  TempDir dir;
  const std::string a = dir.file("a.h5"), b = dir.file("b.h5"), out = dir.file("merged.h5");
  for (const auto& [path, ids] : {std::make_pair(a, std::vector<std::string>{"run-x"}),
                                  std::make_pair(b, std::vector<std::string>{"run-x"})}) {
    ResultsWriter w(path, false);
    for (const auto& id : ids) {
      RunInfo i = info(id);
      i.hostname = path == a ? "node-a" : "node-b";
      w.begin_run(i);
      std::vector<ResultRow> rows = {result("peer:a", {1.0, 2.0}), result("peer:b", {3.0})};
      w.append_results(rows);
      w.finish_run("complete", "2026-01-02T03:05:00Z");
    }
  }
  const MergeSummary s = merge_results({a, b}, out, false);
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].run_id == "run-x");
  CHECK(s.runs[1].run_id == "run-x-2");
  CHECK(s.runs[1].results == 2);

  const ResultsFile merged = read_results(out);
  REQUIRE(merged.runs.size() == 2);
  std::set<std::string> hosts;
  for (const auto& run : merged.runs) {
    hosts.insert(run.info.hostname);
    CHECK(run.info.config_texts == info("x").config_texts);
    CHECK(run.results.size() == 2);
    CHECK(run.results[0].samples == std::vector<double>{1.0, 2.0});
    CHECK_THAT(run.info.merged_from, Catch::EndsWith("#/runs/run-x"));
  }
  CHECK(hosts == std::set<std::string>{"node-a", "node-b"});

  CHECK_THROWS_AS(merge_results({a}, out, false), ResultsError);      // exists
  CHECK_THROWS_AS(merge_results({a, out}, out, true), ResultsError);  // output is an input
  CHECK_THROWS_AS(merge_results({dir.file("nope.h5")}, dir.file("o2.h5"), false), ResultsError);
  CHECK_FALSE(fs::exists(dir.file("o2.h5")));  // nothing written when an input is unusable
}

TEST_CASE("a file from an older writer with fewer columns still reads", "[results]") {
  TempDir dir;
  const std::string path = dir.file("old.h5");
  {
    // A minimal v1 file written by hand: three result columns, no workers columns beyond two.
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t text = H5Tcopy(H5T_C_S1);
    H5Tset_size(text, H5T_VARIABLE);
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const char* schema = "tfbench-results";
    hid_t a = H5Acreate2(file, "schema", text, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, text, &schema);
    H5Aclose(a);
    const long long version = 1;
    a = H5Acreate2(file, "schema_version", H5T_NATIVE_LLONG, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, &version);
    H5Aclose(a);
    const hid_t runs = H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t run = H5Gcreate2(runs, "old-run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    struct Old {
      const char* case_id;
      int threads;  // a 32-bit integer: converted on read
      double median_s;
      long long sample_offset, sample_count;
    };
    const hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(Old));
    H5Tinsert(type, "case_id", HOFFSET(Old, case_id), text);
    H5Tinsert(type, "threads", HOFFSET(Old, threads), H5T_NATIVE_INT);
    H5Tinsert(type, "median_s", HOFFSET(Old, median_s), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "sample_offset", HOFFSET(Old, sample_offset), H5T_NATIVE_LLONG);
    H5Tinsert(type, "sample_count", HOFFSET(Old, sample_count), H5T_NATIVE_LLONG);
    const hsize_t one = 1, two = 2;
    const Old row{"fam/n=1/x", 2, 0.5, 0, 2};
    const hid_t space = H5Screate_simple(1, &one, nullptr);
    const hid_t d = H5Dcreate2(run, "results", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row);
    const double samples[2] = {0.4, 0.6};
    const hid_t sspace = H5Screate_simple(1, &two, nullptr);
    const hid_t sd =
        H5Dcreate2(run, "samples", H5T_NATIVE_DOUBLE, sspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(sd, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, samples);
    struct OldWorker {
      int threads;
      long long pid;
    };
    const hid_t wtype = H5Tcreate(H5T_COMPOUND, sizeof(OldWorker));
    H5Tinsert(wtype, "threads", HOFFSET(OldWorker, threads), H5T_NATIVE_INT);
    H5Tinsert(wtype, "pid", HOFFSET(OldWorker, pid), H5T_NATIVE_LLONG);
    const OldWorker worker{2, 77};
    const hid_t wd = H5Dcreate2(run, "workers", wtype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(wd, wtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, &worker);
    for (hid_t id : {wd, sd, d}) H5Dclose(id);
    for (hid_t id : {wtype, type, text}) H5Tclose(id);
    for (hid_t id : {space, sspace, scalar}) H5Sclose(id);
    H5Gclose(run);
    H5Gclose(runs);
    H5Fclose(file);
  }
  const ResultsFile f = read_results(path);
  REQUIRE(f.runs.size() == 1);
  const RunData& run = f.runs[0];
  CHECK(run.info.status.empty());  // an absent attribute reads as empty
  REQUIRE(run.results.size() == 1);
  CHECK(run.results[0].case_id == "fam/n=1/x");
  CHECK(run.results[0].threads == 2);
  CHECK(run.results[0].median_s == 0.5);
  CHECK(run.results[0].samples == std::vector<double>{0.4, 0.6});
  CHECK(std::isnan(run.results[0].gflops));            // a column the file lacks
  CHECK(run.results[0].status == RowStatus::Unknown);  // a column the file lacks
  REQUIRE(run.workers.size() == 1);
  CHECK(run.workers[0].pid == 77);
  CHECK(std::isnan(run.workers[0].ceiling_gbs));
}

TEST_CASE("a file that is HDF5 but not tfbench's is refused", "[results]") {
  TempDir dir;
  const std::string path = dir.file("other.h5");
  H5Fclose(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  CHECK_THROWS_WITH(read_results(path), Catch::Contains("not a tfbench result file"));
}

TEST_CASE("a schema_version that is not an integer is reported as such, not as missing", "[results]") {
  TempDir dir;
  const std::string path = dir.file("string_version.h5");
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  impl::write_attribute(file, "schema", std::string(kResultsSchema));
  impl::write_attribute(file, "schema_version", std::string("1"));
  H5Fclose(file);
  CHECK_THROWS_WITH(
      read_results(path),
      Catch::EndsWith(": root attribute 'schema_version' is the string '1'; expected an integer (1)"));

  const std::string missing = dir.file("no_version.h5");
  const hid_t other = H5Fcreate(missing.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  impl::write_attribute(other, "schema", std::string(kResultsSchema));
  H5Fclose(other);
  CHECK_THROWS_WITH(read_results(missing), Catch::EndsWith(": root attribute 'schema_version' is missing"));
}
