// Writing result files safely: every commit is a complete file, whatever write fails; the lock
// keeps a second writer off a file being written and is taken over from a dead one; merge writes
// nothing unless every input reads, and keeps a run given twice once.

#include "result_fixtures.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/harness/system_info.hpp"

#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace tfbench::harness;
using namespace tfbench::harness::test;
namespace fs = std::filesystem;

namespace {

/// Files beyond `bytes` cannot be written while it lives: write() fails with EFBIG at that offset,
/// as it fails with ENOSPC on a full disk (SIGXFSZ is ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  sighandler_t previous_ = SIG_DFL;
};

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// The pid of a process of this host that has exited.
long dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

std::size_t entries(const TempDir& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir.path), {}));
}

}  // namespace

TEST_CASE("a write that fails at any size leaves the last complete file", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  std::size_t failures = 0;
  for (rlim_t limit = 4096; limit <= 96 * 1024; limit += 2048) {
    fs::remove(path);
    std::size_t committed = 0;
    bool created = false;
    std::string error;
    {
      FileSizeLimit small(limit);
      try {
        ResultsWriter w(path, false);
        created = true;
        w.begin_run(info("run-a"));
        for (int i = 0; i < 60; ++i) {
          std::vector<ResultRow> rows = {
              result("peer:" + std::to_string(i), std::vector<double>(64, 1.0 * i))};
          w.append_results(rows);
          ++committed;
        }
        w.finish_run("complete", "2026-01-02T03:05:00Z");
      } catch (const ResultsError& e) {
        error = e.what();
      }
    }
    INFO("file size limit " << limit << ": " << error);
    if (!created) {
      CHECK_FALSE(fs::exists(path));  // not even the empty file fitted
    } else {
      const ResultsFile f = read_results(path);
      REQUIRE(f.runs.size() <= 1);
      const std::size_t rows = f.runs.empty() ? 0 : f.runs[0].results.size();
      CHECK(rows == committed);
      if (!f.runs.empty() && rows > 0) CHECK(f.runs[0].results.back().samples.size() == 64);
    }
    if (!error.empty()) {
      ++failures;
      CHECK_THAT(error, Catch::Contains("cannot write " + path) && Catch::Contains("EFBIG"));
    }
    CHECK(entries(dir) == (fs::exists(path) ? 1u : 0u));  // no temporary or lock file left
  }
  CHECK(failures > 20);  // the limits did hit every stage of the run
}

TEST_CASE("a file being written is locked against a second writer", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  {
    ResultsWriter first(path, false, "tfbench run first.yaml");
    CHECK(fs::exists(path + ".lock"));
    CHECK_THAT(text_of(path + ".lock"), Catch::Contains("pid=" + std::to_string(getpid())));
    CHECK_THROWS_WITH(ResultsWriter(path, true),
                      Catch::Contains("is being written by pid " + std::to_string(getpid())) &&
                          Catch::Contains("tfbench run first.yaml"));
    CHECK_THROWS_WITH(merge_results({path}, path, true), Catch::Contains("also an input"));
  }
  CHECK_FALSE(fs::exists(path + ".lock"));  // released with the writer
  CHECK_NOTHROW(ResultsWriter(path, true));
}

TEST_CASE("a stale lock of a dead process on this host is taken over", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  const long dead = dead_pid();
  write_text(path + ".lock", "pid=" + std::to_string(dead) + "\nhost=" + host_name() + "\n");
  write_text(path + ".tmp-" + std::to_string(dead), "half a file");
  {
    ResultsWriter w(path, false);
    CHECK_THAT(w.note(), Catch::Contains("stale lock") && Catch::Contains("pid " + std::to_string(dead)));
    CHECK_THAT(text_of(path + ".lock"), Catch::Contains("pid=" + std::to_string(getpid())));
  }
  CHECK(entries(dir) == 1);  // the dead writer's temporary file went with its lock
}

TEST_CASE("a lock of a killed process not yet reaped (a zombie) is stale too", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  const pid_t child = fork();
  if (child == 0) _exit(0);
  for (int i = 0;
       i < 200 && text_of("/proc/" + std::to_string(child) + "/stat").find(") Z") == std::string::npos; ++i)
    usleep(5000);
  write_text(path + ".lock", "pid=" + std::to_string(child) + "\nhost=" + host_name() + "\n");
  CHECK_THAT(ResultsWriter(path, false).note(), Catch::Contains("stale lock"));
  int status = 0;
  waitpid(child, &status, 0);
}

TEST_CASE("a lock of another host or without a holder is not taken over", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  write_text(path + ".lock", "pid=" + std::to_string(dead_pid()) + "\nhost=elsewhere-" + host_name() + "\n");
  CHECK_THROWS_WITH(ResultsWriter(path, true),
                    Catch::Contains("on host elsewhere-") && Catch::Contains("remove the lock file"));
  write_text(path + ".lock", "");
  CHECK_THROWS_WITH(ResultsWriter(path, true), Catch::Contains("names no writer"));
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("a writer removes only its own lock", "[results][output]") {
  TempDir dir;
  const std::string path = dir.file("x.h5");
  {
    ResultsWriter w(path, false);
    write_text(path + ".lock", "pid=1\nhost=someone-else\n");  // replaced behind its back
  }
  CHECK(text_of(path + ".lock") == "pid=1\nhost=someone-else\n");
}

TEST_CASE("merge keeps a file or a run given twice once", "[results][merge][output]") {
  TempDir dir;
  const std::string a = dir.file("a.h5"), out = dir.file("out.h5"), again = dir.file("again.h5");
  {
    ResultsWriter w(a, false);
    w.begin_run(info("run-a"));
    std::vector<ResultRow> rows = {result("peer:a", {1.0, 2.0})};
    w.append_results(rows);
    w.finish_run("complete", "2026-01-02T03:05:00Z");
  }
  MergeSummary s = merge_results({a, a, (dir.path / "." / "a.h5").string()}, out, false);
  CHECK(s.runs.size() == 1);
  REQUIRE(s.notes.size() == 2);
  CHECK_THAT(s.notes[0], Catch::Contains("same file") && Catch::Contains("merged once"));
  CHECK(read_results(out).runs.size() == 1);

  // The run again, inside a merged file: recognized by merged_from, start and host.
  s = merge_results({out, a}, again, false);
  CHECK(s.runs.size() == 1);
  REQUIRE(s.notes.size() == 1);
  CHECK_THAT(s.notes[0], Catch::Contains("is the same run as"));
}

TEST_CASE("merge writes nothing unless every input passes the reader's checks", "[results][merge][output]") {
  TempDir dir;
  const std::string good = dir.file("good.h5"), bad = dir.file("bad.h5"), out = dir.file("out.h5");
  for (const auto& path : {good, bad}) {
    ResultsWriter w(path, false);
    w.begin_run(info(path == good ? "run-good" : "run-bad"));
    std::vector<ResultRow> rows = {result("peer:a", {1.0, 2.0})};
    w.append_results(rows);
  }
  {
    // Rows that point past the samples: HDF5 copies them happily, the reader refuses them.
    const hid_t file = H5Fopen(bad.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t samples = H5Dopen2(file, "/runs/run-bad/samples", H5P_DEFAULT);
    const hsize_t zero = 0;
    H5Dset_extent(samples, &zero);
    H5Dclose(samples);
    H5Fclose(file);
  }
  CHECK_THROWS_WITH(merge_results({good, bad}, out, false), Catch::Contains("outside the samples dataset"));
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out + ".lock"));
}

TEST_CASE("merge refuses two different versions of one run", "[results][merge][output]") {
  TempDir dir;
  const std::string early = dir.file("early.h5"), late = dir.file("late.h5"), out = dir.file("out.h5");
  for (const auto& path : {early, late}) {
    ResultsWriter w(path, false);
    w.begin_run(info("run-a"));
    std::vector<ResultRow> rows = {result("peer:a", {1.0})};
    if (path == late) rows.push_back(result("peer:b", {2.0}));
    w.append_results(rows);
  }
  CHECK_THROWS_WITH(merge_results({early, late}, out, false), Catch::Contains("different contents"));
  CHECK_FALSE(fs::exists(out));
}
