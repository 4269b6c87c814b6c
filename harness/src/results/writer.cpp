#include "results/hdf5_util.hpp"
#include "results/output_file.hpp"
#include "results/schema.hpp"

#include <optional>

namespace tfbench::harness {

using impl::h5_check;
using impl::h5_checked;
using impl::H5Handle;

struct ResultsWriter::State {
  std::optional<impl::OutputFile> output;  // declared first: closed last
  H5Handle run, workers, results, samples;
  H5Handle worker_type, result_type;
  std::size_t rows = 0, committed_rows = 0;

  /// Publishes the file; a failure says what the file on disk still holds.
  void commit() {
    try {
      output->commit();
      committed_rows = rows;
    } catch (const ResultsWriteError& e) {
      throw ResultsWriteError(std::string(e.what()) +
                              (output->committed()
                                   ? "; the file keeps the " + std::to_string(committed_rows) +
                                         " result row(s) of its last complete write"
                                   : "; nothing was written"));
    }
  }
};

ResultsWriter::ResultsWriter(const std::string& path, bool overwrite, const std::string& command)
    : path_(path), state_(new State) {
  State& s = *state_;
  s.output.emplace(path, overwrite, command);
  const hid_t file = s.output->file();
  impl::write_attribute(file, "schema", std::string(kResultsSchema));
  impl::write_attribute(file, "schema_version", static_cast<std::int64_t>(kResultsSchemaVersion));
  H5Handle runs =
      h5_checked(H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "/runs");
  s.worker_type = impl::memory_type(impl::worker_columns(), {});
  s.result_type = impl::memory_type(impl::result_columns(), {});
  s.commit();
}

const std::string& ResultsWriter::note() const {
  static const std::string none;
  return state_ && state_->output ? state_->output->note() : none;
}

ResultsWriter::~ResultsWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() already reported what it could
  }
}

void ResultsWriter::begin_run(const RunInfo& info) {
  State& s = *state_;
  const std::string name = "/runs/" + info.run_id;
  s.run = h5_checked(H5Gcreate2(s.output->file(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Gclose, name);
  for (const auto& a : impl::run_attributes()) {
    if (a.text)
      impl::write_attribute(s.run, a.name, info.*a.text);
    else if (a.integer)
      impl::write_attribute(s.run, a.name, info.*a.integer);
    else
      impl::write_attribute(s.run, a.name, info.*a.number);
  }
  H5Handle configs = h5_checked(H5Gcreate2(s.run, "configs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                                "configs group");
  H5Handle text_type = impl::vlen_string_type();
  H5Handle scalar = h5_checked(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  for (std::size_t i = 0; i < info.config_texts.size(); ++i) {
    const std::string key = std::to_string(i);
    H5Handle d =
        h5_checked(H5Dcreate2(configs, key.c_str(), text_type, scalar, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, "configs/" + key);
    const char* p = info.config_texts[i].c_str();
    h5_check(H5Dwrite(d, text_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), "write configs/" + key);
    impl::describe(d, "", impl::kConfigDescription);
  }
  s.workers = impl::create_table(s.run, "workers", s.worker_type, 16);
  s.results = impl::create_table(s.run, "results", s.result_type, 64);
  s.samples = impl::create_table(s.run, "samples", H5T_NATIVE_DOUBLE, 1024);
  impl::describe_table(s.workers, impl::worker_columns(), impl::kWorkersDescription);
  impl::describe_table(s.results, impl::result_columns(), impl::kResultsDescription);
  impl::describe(s.samples, "s", impl::kSamplesDescription);
  s.commit();
}

std::size_t ResultsWriter::append_worker(const WorkerRow& worker) {
  State& s = *state_;
  const auto buffer = impl::pack_rows(impl::worker_columns(), {&worker});
  const hsize_t index = impl::append_records(s.workers, s.worker_type, buffer.data(), 1);
  s.commit();
  return static_cast<std::size_t>(index);
}

void ResultsWriter::update_worker(std::size_t index, const WorkerRow& worker) {
  State& s = *state_;
  const auto buffer = impl::pack_rows(impl::worker_columns(), {&worker});
  impl::write_record(s.workers, s.worker_type, buffer.data(), index);
  s.commit();
}

void ResultsWriter::append_results(std::vector<ResultRow>& rows) {
  if (rows.empty()) return;
  State& s = *state_;
  std::vector<double> samples;
  hsize_t offset = impl::dataset_length(s.samples);
  for (auto& row : rows) {
    row.sample_offset = static_cast<std::int64_t>(offset);
    row.sample_count = static_cast<std::int64_t>(row.samples.size());
    samples.insert(samples.end(), row.samples.begin(), row.samples.end());
    offset += row.samples.size();
  }
  impl::append_records(s.samples, H5T_NATIVE_DOUBLE, samples.data(), samples.size());
  std::vector<const ResultRow*> pointers;
  for (const auto& row : rows) pointers.push_back(&row);
  const auto buffer = impl::pack_rows(impl::result_columns(), pointers);
  impl::append_records(s.results, s.result_type, buffer.data(), rows.size());
  s.rows += rows.size();
  s.commit();
}

void ResultsWriter::finish_run(const std::string& status, const std::string& end_utc) {
  State& s = *state_;
  impl::write_attribute(s.run, "status", status);
  impl::write_attribute(s.run, "end_utc", end_utc);
  s.commit();
}

void ResultsWriter::close() {
  if (!state_) return;
  // Every change was committed as it was made: closing discards the in-memory file and the lock.
  state_.reset();
}

}  // namespace tfbench::harness
