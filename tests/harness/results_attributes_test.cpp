// The result file describes itself: every dataset has `units` and `description` attributes, and
// every column of a table `<column>.units` and `<column>.description`; a file without them (an
// older writer's) still reads.

#include "result_fixtures.hpp"
#include "results/hdf5_util.hpp"
#include "results/schema.hpp"
#include "tfbench/harness/results.hpp"

#include <hdf5.h>
#include <catch2/catch.hpp>

#include <map>

using namespace tfbench::harness;
using namespace tfbench::harness::test;
using impl::read_string_attribute;

namespace {

std::string write_run(const TempDir& dir) {
  const std::string path = dir.file("described.h5");
  ResultsWriter w(path, false);
  w.begin_run(info("run-d"));
  w.append_worker(WorkerRow{});
  std::vector<ResultRow> rows = {result("peer:a", {1.0, 2.0})};
  w.append_results(rows);
  w.finish_run("complete", "2026-01-02T03:05:00Z");
  return path;
}

struct OpenFile {
  hid_t file;
  explicit OpenFile(const std::string& path, unsigned flags = H5F_ACC_RDONLY)
      : file(H5Fopen(path.c_str(), flags, H5P_DEFAULT)) {
    REQUIRE(file >= 0);
  }
  ~OpenFile() { H5Fclose(file); }
  impl::H5Handle dataset(const char* name) const {
    return impl::h5_checked(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, name);
  }
};

template <class Row>
void check_columns(hid_t table, const std::vector<impl::Column<Row>>& columns) {
  for (const auto& c : columns) {
    INFO("column " << c.name);
    const auto units = read_string_attribute(table, (std::string(c.name) + ".units").c_str());
    const auto description = read_string_attribute(table, (std::string(c.name) + ".description").c_str());
    REQUIRE(units);
    REQUIRE(description);
    CHECK(*units == c.units);
    CHECK_FALSE(description->empty());
    if (c.text) CHECK(units->empty());  // text has no unit
  }
}

}  // namespace

TEST_CASE("every dataset and column of a written file has units and a description", "[results][attributes]") {
  TempDir dir;
  const std::string path = write_run(dir);
  OpenFile f(path);
  const std::map<std::string, std::string> dataset_units = {{"/runs/run-d/workers", ""},
                                                            {"/runs/run-d/results", ""},
                                                            {"/runs/run-d/samples", "s"},
                                                            {"/runs/run-d/configs/0", ""},
                                                            {"/runs/run-d/configs/1", ""}};
  for (const auto& [name, units] : dataset_units) {
    INFO(name);
    const impl::H5Handle d = f.dataset(name.c_str());
    CHECK(read_string_attribute(d, "units") == units);
    const auto description = read_string_attribute(d, "description");
    REQUIRE(description);
    CHECK_FALSE(description->empty());
  }
  const impl::H5Handle results = f.dataset("/runs/run-d/results");
  check_columns(results, impl::result_columns());
  check_columns(f.dataset("/runs/run-d/workers"), impl::worker_columns());
  // The units a reader relies on, spelled out.
  CHECK(read_string_attribute(results, "median_s.units") == std::string("s"));
  CHECK(read_string_attribute(results, "gbs.units") == std::string("GB/s"));
  CHECK(read_string_attribute(results, "gflops.units") == std::string("GFLOP/s"));
  CHECK(read_string_attribute(results, "cv.units") == std::string("1"));
  CHECK(read_string_attribute(results, "case_id.units") == std::string(""));
}

TEST_CASE("every number column has a unit and every column a description", "[results][attributes]") {
  for (const auto& c : impl::result_columns()) {
    INFO(c.name);
    CHECK(*c.description);
  }
  for (const auto& c : impl::worker_columns()) {
    INFO(c.name);
    CHECK(*c.description);
  }
  for (const auto& c : impl::result_columns()) {
    INFO(c.name);
    if (c.number) CHECK(*c.units);
  }
}

TEST_CASE("a file without units and descriptions still reads", "[results][attributes]") {
  TempDir dir;
  const std::string path = write_run(dir);
  {
    OpenFile f(path, H5F_ACC_RDWR);
    for (const char* name : {"/runs/run-d/results", "/runs/run-d/workers", "/runs/run-d/samples"}) {
      const impl::H5Handle d = f.dataset(name);
      while (H5Aget_num_attrs(d) > 0)
        REQUIRE(H5Adelete_by_idx(d, ".", H5_INDEX_NAME, H5_ITER_INC, 0, H5P_DEFAULT) >= 0);
    }
  }
  const ResultsFile f = read_results(path);
  REQUIRE(f.runs.size() == 1);
  REQUIRE(f.runs[0].results.size() == 1);
  CHECK(f.runs[0].results[0].samples == std::vector<double>{1.0, 2.0});
}
