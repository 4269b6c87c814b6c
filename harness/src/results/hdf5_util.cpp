#include "results/hdf5_util.hpp"

#include <mutex>

namespace tfbench::harness::impl {

void h5_quiet() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

H5Handle h5_checked(hid_t id, H5Handle::Closer closer, const std::string& what) {
  if (id < 0) throw ResultsError(what + ": HDF5 call failed");
  return H5Handle(id, closer);
}

H5Handle unlocked_file_access() {
  H5Handle access = h5_checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
#if H5_VERSION_GE(1, 10, 7)
  h5_check(H5Pset_file_locking(access, false, true), "file locking");
#endif
  return access;
}

void h5_check(herr_t status, const std::string& what) {
  if (status < 0) throw ResultsError(what + ": HDF5 call failed");
}

H5Handle vlen_string_type() {
  H5Handle type = h5_checked(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  h5_check(H5Tset_size(type, H5T_VARIABLE), "string type size");
  h5_check(H5Tset_cset(type, H5T_CSET_UTF8), "string type charset");
  return type;
}

namespace {

H5Handle fresh_attribute(hid_t location, const char* name, hid_t type) {
  if (H5Aexists(location, name) > 0)
    h5_check(H5Adelete(location, name), std::string("replace attribute ") + name);
  H5Handle space = h5_checked(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  return h5_checked(H5Acreate2(location, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    std::string("create attribute ") + name);
}

std::optional<H5Handle> open_attribute(hid_t location, const char* name) {
  if (H5Aexists(location, name) <= 0) return std::nullopt;
  return h5_checked(H5Aopen(location, name, H5P_DEFAULT), H5Aclose, std::string("open attribute ") + name);
}

}  // namespace

void write_attribute(hid_t location, const char* name, const std::string& value) {
  H5Handle type = vlen_string_type();
  H5Handle attribute = fresh_attribute(location, name, type);
  const char* p = value.c_str();
  h5_check(H5Awrite(attribute, type, &p), std::string("write attribute ") + name);
}

void write_attribute(hid_t location, const char* name, std::int64_t value) {
  H5Handle attribute = fresh_attribute(location, name, H5T_NATIVE_INT64);
  h5_check(H5Awrite(attribute, H5T_NATIVE_INT64, &value), std::string("write attribute ") + name);
}

void write_attribute(hid_t location, const char* name, double value) {
  H5Handle attribute = fresh_attribute(location, name, H5T_NATIVE_DOUBLE);
  h5_check(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), std::string("write attribute ") + name);
}

void describe(hid_t location, const std::string& units, const std::string& description) {
  write_attribute(location, "units", units);
  write_attribute(location, "description", description);
}

std::optional<std::string> read_string_attribute(hid_t location, const char* name) {
  auto attribute = open_attribute(location, name);
  if (!attribute) return std::nullopt;
  H5Handle file_type = h5_checked(H5Aget_type(*attribute), H5Tclose, "attribute type");
  if (H5Tget_class(file_type) != H5T_STRING) return std::nullopt;
  if (H5Tis_variable_str(file_type) > 0) {
    H5Handle type = vlen_string_type();
    char* p = nullptr;
    h5_check(H5Aread(*attribute, type, &p), std::string("read attribute ") + name);
    std::string out = p ? p : "";
    H5free_memory(p);
    return out;
  }
  const std::size_t size = H5Tget_size(file_type);
  std::string out(size, '\0');
  H5Handle type = h5_checked(H5Tcopy(file_type), H5Tclose, "string type");
  h5_check(H5Aread(*attribute, type, out.data()), std::string("read attribute ") + name);
  out.resize(out.find('\0') == std::string::npos ? out.size() : out.find('\0'));
  return out;
}

std::optional<std::int64_t> read_int_attribute(hid_t location, const char* name) {
  auto attribute = open_attribute(location, name);
  if (!attribute) return std::nullopt;
  H5Handle file_type = h5_checked(H5Aget_type(*attribute), H5Tclose, "attribute type");
  if (H5Tget_class(file_type) != H5T_INTEGER) return std::nullopt;
  std::int64_t value = 0;
  h5_check(H5Aread(*attribute, H5T_NATIVE_INT64, &value), std::string("read attribute ") + name);
  return value;
}

std::optional<double> read_double_attribute(hid_t location, const char* name) {
  auto attribute = open_attribute(location, name);
  if (!attribute) return std::nullopt;
  H5Handle file_type = h5_checked(H5Aget_type(*attribute), H5Tclose, "attribute type");
  const H5T_class_t cls = H5Tget_class(file_type);
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) return std::nullopt;
  double value = 0.0;
  h5_check(H5Aread(*attribute, H5T_NATIVE_DOUBLE, &value), std::string("read attribute ") + name);
  return value;
}

H5Handle create_table(hid_t group, const char* name, hid_t type, hsize_t chunk) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  H5Handle space = h5_checked(H5Screate_simple(1, &zero, &unlimited), H5Sclose, "table space");
  H5Handle properties = h5_checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
  h5_check(H5Pset_chunk(properties, 1, &chunk), "chunking");
  return h5_checked(H5Dcreate2(group, name, type, space, H5P_DEFAULT, properties, H5P_DEFAULT), H5Dclose,
                    std::string("create ") + name);
}

hsize_t dataset_length(hid_t dataset) {
  H5Handle space = h5_checked(H5Dget_space(dataset), H5Sclose, "dataset space");
  if (H5Sget_simple_extent_ndims(space) != 1) throw ResultsError("expected a 1-D dataset");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  return n;
}

hsize_t append_records(hid_t dataset, hid_t type, const void* buffer, hsize_t count) {
  const hsize_t start = dataset_length(dataset);
  if (count == 0) return start;
  const hsize_t size = start + count;
  h5_check(H5Dset_extent(dataset, &size), "extend table");
  H5Handle file_space = h5_checked(H5Dget_space(dataset), H5Sclose, "table space");
  h5_check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select rows");
  H5Handle memory_space = h5_checked(H5Screate_simple(1, &count, nullptr), H5Sclose, "row space");
  h5_check(H5Dwrite(dataset, type, memory_space, file_space, H5P_DEFAULT, buffer), "append rows");
  return start;
}

void write_record(hid_t dataset, hid_t type, const void* buffer, hsize_t index) {
  const hsize_t one = 1;
  H5Handle file_space = h5_checked(H5Dget_space(dataset), H5Sclose, "table space");
  h5_check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &index, nullptr, &one, nullptr), "select row");
  H5Handle memory_space = h5_checked(H5Screate_simple(1, &one, nullptr), H5Sclose, "row space");
  h5_check(H5Dwrite(dataset, type, memory_space, file_space, H5P_DEFAULT, buffer), "rewrite row");
}

}  // namespace tfbench::harness::impl
