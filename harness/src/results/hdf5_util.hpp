#pragma once
// Thin RAII and helpers over the HDF5 C API: handles that close themselves, UTF-8 vlen string
// types, scalar attributes, and compound tables described by a field list so that writing, reading
// (of any subset of columns present in a file) and the documentation stay one list.

#include "tfbench/harness/results.hpp"

#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfbench::harness::impl {

/// Turns off HDF5's own error printing; failures become ResultsError with our context.
void h5_quiet();

class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { reset(); }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: handles pass straight into the C API
  void reset() {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// File access properties for reading without HDF5's file lock: writers never modify a result file
/// on disk (each commit replaces it whole, see output_file.hpp), so a reader needs no lock, and
/// HDF5's flock() fails on some NFS mounts.
H5Handle unlocked_file_access();

/// Wraps `id`, throwing ResultsError("<what>: HDF5 call failed") when it is negative.
H5Handle h5_checked(hid_t id, H5Handle::Closer closer, const std::string& what);
void h5_check(herr_t status, const std::string& what);

/// A variable-length UTF-8 string type.
H5Handle vlen_string_type();

void write_attribute(hid_t location, const char* name, const std::string& value);
void write_attribute(hid_t location, const char* name, std::int64_t value);
void write_attribute(hid_t location, const char* name, double value);
std::optional<std::string> read_string_attribute(hid_t location, const char* name);
std::optional<std::int64_t> read_int_attribute(hid_t location, const char* name);
std::optional<double> read_double_attribute(hid_t location, const char* name);

/// A column of a compound table: its name, the member of the row struct it maps, and what the
/// writer records about it (the `<name>.units` and `<name>.description` attributes of the table).
/// A text column is a string member or a RowStatus member (stored as its name()).
template <class Row>
struct Column {
  // Pointers to members through an alias: nvcc's front end writes `M Row::*name` out as
  // `M (Row::*name)`, which GCC then warns of (-Wparentheses) in a CUDA build.
  template <class M>
  using Member = M Row::*;
  const char* name;
  Member<std::string> text = nullptr;
  Member<std::int64_t> integer = nullptr;
  Member<double> number = nullptr;
  const char* units = "";  // "s", "GB/s", ...; "1" a plain number; "" text
  const char* description = "";
  Member<RowStatus> status = nullptr;

  bool is_text() const { return text || status; }
  /// The text of a text column; it lives as long as `row`.
  const char* text_of(const Row& row) const {
    return text ? (row.*text).c_str() : harness::name(row.*status);
  }
  /// Sets a text column from the file's text (a status this tfbench does not know reads as Unknown).
  void set_text(Row& row, const char* value) const {
    if (text) {
      row.*text = value;
    } else {
      row.*status = parse_row_status(value).value_or(RowStatus::Unknown);
    }
  }
};

/// Writes `units` and `description` on `location` (a dataset).
void describe(hid_t location, const std::string& units, const std::string& description);
/// Describes a compound table: its own `units` (empty) and `description`, and per column the
/// attributes `<column>.units` and `<column>.description`.
template <class Row>
void describe_table(hid_t table, const std::vector<Column<Row>>& columns, const std::string& description) {
  describe(table, "", description);
  for (const Column<Row>& c : columns) {
    write_attribute(table, (std::string(c.name) + ".units").c_str(), std::string(c.units));
    write_attribute(table, (std::string(c.name) + ".description").c_str(), std::string(c.description));
  }
}

/// Every column is 8 bytes in memory (char*, int64, double): offset = 8 * position.
template <class Row>
H5Handle memory_type(const std::vector<Column<Row>>& columns, const std::vector<bool>& present) {
  H5Handle type = h5_checked(H5Tcreate(H5T_COMPOUND, 8 * columns.size()), H5Tclose, "create compound type");
  H5Handle text = vlen_string_type();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!present.empty() && !present[i]) continue;
    const Column<Row>& c = columns[i];
    const hid_t member = c.is_text() ? text.get() : (c.integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE);
    h5_check(H5Tinsert(type, c.name, 8 * i, member), std::string("insert column ") + c.name);
  }
  return type;
}

/// Packs rows into the 8-byte-per-column layout; string pointers refer into `rows`.
template <class Row>
std::vector<unsigned char> pack_rows(const std::vector<Column<Row>>& columns,
                                     const std::vector<const Row*>& rows) {
  std::vector<unsigned char> buffer(8 * columns.size() * rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    unsigned char* record = buffer.data() + 8 * columns.size() * r;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Column<Row>& c = columns[i];
      unsigned char* slot = record + 8 * i;
      if (c.is_text()) {
        const char* p = c.text_of(*rows[r]);
        std::memcpy(slot, &p, sizeof(p));
      } else if (c.integer) {
        std::memcpy(slot, &(rows[r]->*c.integer), 8);
      } else {
        std::memcpy(slot, &(rows[r]->*c.number), 8);
      }
    }
  }
  return buffer;
}

/// Creates an empty, chunked, extendible 1-D dataset of `type`.
H5Handle create_table(hid_t group, const char* name, hid_t type, hsize_t chunk);
/// Appends `count` records from `buffer` (memory type `type`); returns the first new index.
hsize_t append_records(hid_t dataset, hid_t type, const void* buffer, hsize_t count);
/// Overwrites record `index`.
void write_record(hid_t dataset, hid_t type, const void* buffer, hsize_t index);
hsize_t dataset_length(hid_t dataset);

/// Reads a whole compound table into rows: columns absent from the file keep the row's defaults.
template <class Row>
std::vector<Row> read_table(hid_t group, const char* name, const std::vector<Column<Row>>& columns);

}  // namespace tfbench::harness::impl

#include "results/hdf5_util_impl.hpp"
