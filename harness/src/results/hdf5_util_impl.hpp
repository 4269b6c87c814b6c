#pragma once
// read_table: the template half of hdf5_util.hpp.

namespace tfbench::harness::impl {

template <class Row>
std::vector<Row> read_table(hid_t group, const char* name, const std::vector<Column<Row>>& columns) {
  if (H5Lexists(group, name, H5P_DEFAULT) <= 0)
    throw ResultsError(std::string("missing table '") + name + "'");
  H5Handle dataset = h5_checked(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, std::string("open ") + name);
  H5Handle file_type = h5_checked(H5Dget_type(dataset), H5Tclose, std::string("type of ") + name);
  if (H5Tget_class(file_type) != H5T_COMPOUND)
    throw ResultsError(std::string("'") + name + "' is not a table");
  // Read only the columns this file has (older or newer writers may differ), each converted to
  // the type this reader expects; a column of the wrong class is treated as absent.
  std::vector<bool> present(columns.size(), false);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const int index = H5Tget_member_index(file_type, columns[i].name);
    if (index < 0) continue;
    const H5T_class_t cls = H5Tget_member_class(file_type, static_cast<unsigned>(index));
    present[i] = columns[i].is_text() ? cls == H5T_STRING : (cls == H5T_INTEGER || cls == H5T_FLOAT);
  }
  const hsize_t n = dataset_length(dataset);
  std::vector<Row> rows(n);
  if (n == 0) return rows;
  H5Handle type = memory_type(columns, present);
  std::vector<unsigned char> buffer(8 * columns.size() * n, 0);
  h5_check(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), std::string("read ") + name);
  for (hsize_t r = 0; r < n; ++r) {
    const unsigned char* record = buffer.data() + 8 * columns.size() * r;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (!present[i]) continue;
      const Column<Row>& c = columns[i];
      const unsigned char* slot = record + 8 * i;
      if (c.is_text()) {
        const char* p = nullptr;
        std::memcpy(&p, slot, sizeof(p));
        c.set_text(rows[r], p ? p : "");
      } else if (c.integer) {
        std::memcpy(&(rows[r].*c.integer), slot, 8);
      } else {
        std::memcpy(&(rows[r].*c.number), slot, 8);
      }
    }
  }
  H5Handle space = h5_checked(H5Dget_space(dataset), H5Sclose, "space");
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer.data());
  return rows;
}

}  // namespace tfbench::harness::impl
