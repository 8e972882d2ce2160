#include "hdf5/hdf5_file.hpp"

#include "hdf5/hdf5_handle.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <hdf5.h>
#include <numeric>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace decgpe::io {

namespace {

/// HDF5 prints its error stack by default; decgpe reports one line of its own instead.
void silence_hdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

/// Writes a file's data and then the folder's entry to the disk; false when either fails.
bool sync_to_disk(const std::filesystem::path& file) {
  const auto sync = [](const std::filesystem::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return false;
    }
    const bool ok = ::fsync(fd) == 0;
    return ::close(fd) == 0 && ok;
  };
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  return sync(file) && sync(folder);
}

using hdf5::check;
using hdf5::Handle;

/// The compound {r, i}; the caller owns the identifier.
hid_t make_complex_type() {
  const hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(Complex));
  if (t >= 0) {
    H5Tinsert(t, "r", offsetof(Complex, re), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "i", offsetof(Complex, im), H5T_NATIVE_DOUBLE);
  }
  return t;
}

/// "cannot write output '<file>': <what>", the file as the run named it (not its temporary).
std::string failure(hid_t object, const std::string& what) {
  char name[4096] = "";
  H5Fget_name(object, name, sizeof name);
  std::string file = name;
  file = file.substr(0, file.rfind(".tmp-"));
  return "cannot write output '" + file + "': " + what;
}

void write_dataset(hid_t file, const std::string& path, hid_t type, const void* data,
                   const std::vector<hsize_t>& dims, hid_t dcpl = H5P_DEFAULT) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose,
               failure(file, "cannot create a dataspace for " + path));
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, failure(file, "cannot create dataset " + path));
  check(H5Pset_create_intermediate_group(lcpl, 1),
        failure(file, "cannot create the groups of " + path));
  Handle set(H5Dcreate2(file, path.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT), H5Dclose,
             failure(file, "cannot create dataset " + path));
  check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
        failure(file, "cannot write dataset " + path));
}

void write_attribute(hid_t object, const std::string& name, hid_t type, const void* data,
                     hsize_t count) {
  Handle space(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose,
               failure(object, "cannot create attribute " + name));
  Handle attr(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              failure(object, "cannot create attribute " + name));
  check(H5Awrite(attr, type, data), failure(object, "cannot write attribute " + name));
}

void write_text_attribute(hid_t object, const std::string& name, const std::string& value) {
  const std::string what = failure(object, "cannot write attribute " + name);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
  check(H5Tset_size(type, value.empty() ? 1 : value.size()), what);
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), what);
  write_attribute(object, name, type, value.empty() ? "" : value.data(), 0);
}

std::string kind_text(H5T_class_t kind) {
  switch (kind) {
  case H5T_STRING:
    return "strings";
  case H5T_COMPOUND:
    return "compound values";
  case H5T_FLOAT:
  case H5T_INTEGER:
    return "real numbers";
  default:
    return "values of another kind";
  }
}

/// Throws "<where>: holds <class>, not numbers" for a dataset of strings, compounds and the like
/// (HDF5 converts integers and floats to double, nothing else).
void require_numbers(hid_t set, const std::string& where) {
  Handle type(H5Dget_type(set), H5Tclose, where);
  const H5T_class_t kind = H5Tget_class(type);
  if (kind != H5T_FLOAT && kind != H5T_INTEGER) {
    throw std::runtime_error(where + ": holds " + kind_text(kind) + ", not numbers");
  }
}

/// Whether compound `type` has a floating-point member `name`.
bool has_float_member(hid_t type, const char* name) {
  const int index = H5Tget_member_index(type, name);
  return index >= 0 && H5Tget_member_class(type, static_cast<unsigned>(index)) == H5T_FLOAT;
}

/// Throws "<where>: holds <class>, not complex numbers …" unless the dataset holds a compound of
/// two floats r and i (what this file writes and h5py writes for complex128 and complex64).
void require_complex(hid_t set, const std::string& where) {
  Handle type(H5Dget_type(set), H5Tclose, where);
  const H5T_class_t kind = H5Tget_class(type);
  if (kind != H5T_COMPOUND || H5Tget_nmembers(type) != 2 || !has_float_member(type, "r") ||
      !has_float_member(type, "i")) {
    throw std::runtime_error(
        where + ": holds " +
        (kind == H5T_COMPOUND ? "compounds other than {r, i}" : kind_text(kind)) +
        ", not complex numbers (a compound {r, i} of floats)");
  }
}

} // namespace

void init_hdf5() {
  H5dont_atexit();
  silence_hdf5();
}

ResultsFile::ResultsFile(std::filesystem::path path) : path_(std::move(path)) {
  silence_hdf5();
  const auto fail = [&](const std::string& reason) {
    throw std::runtime_error("cannot write output '" + path_.string() + "': " + reason);
  };
  if (path_.empty() || path_.filename().empty()) {
    fail("not a file name");
  }
  if (std::filesystem::is_directory(path_)) {
    fail("is a directory");
  }
  std::error_code ec;
  if (path_.has_parent_path()) {
    std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec) {
      fail(ec.message());
    }
  }
  temporary_ = path_;
  temporary_ += ".tmp-" + std::to_string(getpid());
  file_ = H5Fcreate(temporary_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0) {
    // HDF5 does not say why; the operating system does.
    errno = 0;
    FILE* probe = std::fopen(temporary_.c_str(), "w");
    const std::string reason = probe == nullptr ? std::strerror(errno) : "HDF5 could not create it";
    if (probe != nullptr) {
      std::fclose(probe);
      std::filesystem::remove(temporary_, ec);
    }
    fail(reason);
  }
}

ResultsFile::~ResultsFile() {
  if (file_ >= 0) {
    H5Fclose(file_);
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
  }
}

void ResultsFile::attribute(const std::string& name, const std::string& value) {
  write_text_attribute(file_, name, value);
}
void ResultsFile::attribute(const std::string& name, double value) {
  write_attribute(file_, name, H5T_NATIVE_DOUBLE, &value, 0);
}
void ResultsFile::attribute(const std::string& name, std::int64_t value) {
  write_attribute(file_, name, H5T_NATIVE_INT64, &value, 0);
}
void ResultsFile::attribute(const std::string& name, std::span<const double> values) {
  write_attribute(file_, name, H5T_NATIVE_DOUBLE, values.data(), values.size());
}
void ResultsFile::attribute(const std::string& name, std::span<const std::int64_t> values) {
  write_attribute(file_, name, H5T_NATIVE_INT64, values.data(), values.size());
}

void ResultsFile::attribute_of(const std::string& object, const std::string& name, double value) {
  Handle obj(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose, "no object " + object);
  write_attribute(obj, name, H5T_NATIVE_DOUBLE, &value, 0);
}
void ResultsFile::attribute_of(const std::string& object, const std::string& name,
                               const std::string& value) {
  Handle obj(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose, "no object " + object);
  write_text_attribute(obj, name, value);
}

void ResultsFile::write(const std::string& path, std::span<const double> data,
                        std::vector<std::uint64_t> dims) {
  write_dataset(file_, path, H5T_NATIVE_DOUBLE, data.data(), {dims.begin(), dims.end()});
}
void ResultsFile::write(const std::string& path, std::span<const float> data,
                        std::vector<std::uint64_t> dims) {
  write_dataset(file_, path, H5T_NATIVE_FLOAT, data.data(), {dims.begin(), dims.end()});
}
void ResultsFile::write(const std::string& path, std::span<const std::int64_t> data) {
  write_dataset(file_, path, H5T_NATIVE_INT64, data.data(), {data.size()});
}
void ResultsFile::write(const std::string& path, std::span<const std::int32_t> data) {
  write_dataset(file_, path, H5T_NATIVE_INT32, data.data(), {data.size()});
}
void ResultsFile::write_virtual(const std::string& path, Element element, std::uint64_t rows,
                                std::uint64_t width, const std::vector<VirtualPart>& parts) {
  const std::string what = failure(file_, "cannot create virtual dataset " + path);
  Handle type(element == Element::complex ? make_complex_type() : H5Tcopy(H5T_NATIVE_FLOAT),
              H5Tclose, what);
  const int rank = width == 1 ? 1 : 2;
  const hsize_t dims[2] = {rows, width};
  Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose, what);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  for (const VirtualPart& part : parts) {
    const hsize_t part_dims[2] = {part.end - part.begin, width};
    Handle source(H5Screate_simple(rank, part_dims, nullptr), H5Sclose, what);
    const hsize_t start[2] = {part.begin, 0};
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, part_dims, nullptr), what);
    check(H5Pset_virtual(dcpl, space, part.file.c_str(), path.c_str(), source), what);
  }
  check(H5Sselect_all(space), what);
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, what);
  check(H5Pset_create_intermediate_group(lcpl, 1), what);
  Handle set(H5Dcreate2(file_, path.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT), H5Dclose, what);
}

void ResultsFile::write(const std::string& path, std::span<const Complex> data, Checksum checksum) {
  const std::string what = failure(file_, "cannot write dataset " + path);
  Handle type(make_complex_type(), H5Tclose, what);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  if (checksum == Checksum::fletcher32 && !data.empty()) {
    // 1 MiB values (16 MiB) a chunk: a checksum per chunk, and the chunk HDF5 reads whole.
    const hsize_t chunk = std::min<hsize_t>(data.size(), hsize_t{1} << 20);
    check(H5Pset_chunk(dcpl, 1, &chunk), what);
    check(H5Pset_fletcher32(dcpl), what);
  }
  write_dataset(file_, path, type, data.data(), {data.size()}, dcpl);
}

void ResultsFile::write_text(const std::string& path, const std::string& text) {
  const std::string what = failure(file_, "cannot write dataset " + path);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
  check(H5Tset_size(type, text.empty() ? 1 : text.size()), what);
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), what);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, what);
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, what);
  check(H5Pset_create_intermediate_group(lcpl, 1), what);
  Handle set(H5Dcreate2(file_, path.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             what);
  check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.empty() ? "" : text.data()), what);
}

void ResultsFile::commit() {
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  std::error_code ec;
  const auto fail = [&](const std::string& reason) {
    std::filesystem::remove(temporary_, ec);
    throw std::runtime_error("cannot write output '" + path_.string() + "': " + reason);
  };
  if (closed < 0) {
    fail("closing the file failed (is the disk full?)");
  }
  errno = 0;
  if (!sync_to_disk(temporary_)) {
    fail(std::string("fsync failed: ") + std::strerror(errno));
  }
  std::filesystem::rename(temporary_, path_, ec);
  if (ec) {
    fail(ec.message());
  }
  sync_to_disk(path_);
}

InputFile::InputFile(std::filesystem::path path) : path_(std::move(path)) {
  silence_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) {
    throw std::runtime_error("cannot read '" + path_.string() + "': no such file");
  }
  if (!std::filesystem::is_regular_file(path_, ec)) {
    throw std::runtime_error("cannot read '" + path_.string() + "': not a regular file");
  }
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) {
    throw std::runtime_error("cannot read '" + path_.string() + "': not an HDF5 file");
  }
}

InputFile::~InputFile() {
  H5Fclose(file_);
}

bool InputFile::has(const std::string& path) const {
  return H5Lexists(file_, path.c_str(), H5P_DEFAULT) > 0;
}

bool InputFile::has_attribute(const std::string& name) const {
  return H5Aexists(file_, name.c_str()) > 0;
}

std::uint64_t InputFile::length(std::int64_t set, const std::string& dataset, int rank) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle space(H5Dget_space(set), H5Sclose, where);
  if (H5Sget_simple_extent_ndims(space) != rank) {
    throw std::runtime_error(where + ": expected a " + std::to_string(rank) + "-D dataset");
  }
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<>());
}

std::vector<double> InputFile::matrix(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  require_numbers(set, where);
  std::vector<double> out(length(set, dataset, 2));
  check(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where);
  return out;
}

std::vector<double> InputFile::doubles(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  require_numbers(set, where);
  std::vector<double> out(length(set, dataset));
  check(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where);
  return out;
}

std::vector<std::int64_t> InputFile::integers(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  std::vector<std::int64_t> out(length(set, dataset));
  check(H5Dread(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where);
  return out;
}

std::vector<Complex> InputFile::complexes(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  require_complex(set, where);
  Handle type(make_complex_type(), H5Tclose, where);
  std::vector<Complex> out(length(set, dataset));
  check(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where);
  return out;
}

std::uint64_t InputFile::size(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  return length(set, dataset);
}

void InputFile::read_range(const std::string& dataset, std::int64_t type, std::uint64_t offset,
                           std::uint64_t count, void* out) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  if (H5Tget_class(type) == H5T_FLOAT) { // read as numbers: the dataset must hold numbers
    require_numbers(set, where);
  } else { // read as complex numbers
    require_complex(set, where);
  }
  const std::uint64_t total = length(set, dataset);
  if (offset > total || count > total - offset) {
    throw std::runtime_error(where + ": values " + std::to_string(offset) + " to " +
                             std::to_string(offset + count) + " asked of " + std::to_string(total));
  }
  Handle file_space(H5Dget_space(set), H5Sclose, where);
  const hsize_t start = offset, length = count;
  check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, nullptr, &length, nullptr), where);
  Handle memory_space(H5Screate_simple(1, &length, nullptr), H5Sclose, where);
  check(H5Dread(set, type, memory_space, file_space, H5P_DEFAULT, out), where);
}

std::vector<double> InputFile::doubles(const std::string& dataset, std::uint64_t offset,
                                       std::uint64_t count) const {
  std::vector<double> out(count);
  read_range(dataset, H5T_NATIVE_DOUBLE, offset, count, out.data());
  return out;
}

std::vector<Complex> InputFile::complexes(const std::string& dataset, std::uint64_t offset,
                                          std::uint64_t count) const {
  Handle type(make_complex_type(), H5Tclose, "cannot read '" + path_.string() + "'");
  std::vector<Complex> out(count);
  read_range(dataset, type, offset, count, out.data());
  return out;
}

std::string InputFile::text(const std::string& dataset) const {
  const std::string where = "cannot read '" + path_.string() + "' dataset '" + dataset + "'";
  Handle set(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose, where + ": no such dataset");
  Handle type(H5Dget_type(set), H5Tclose, where);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0) {
    throw std::runtime_error(where + ": not a fixed-length string");
  }
  std::string out(H5Tget_size(type), '\0');
  check(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where);
  out.resize(std::strlen(out.c_str()));
  return out;
}

std::vector<std::string> InputFile::members(const std::string& group) const {
  std::vector<std::string> names;
  if (!has(group)) {
    return names;
  }
  Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose, "cannot open group " + group);
  H5G_info_t info{};
  check(H5Gget_info(g, &info), "cannot read group " + group);
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    const ssize_t n =
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    std::string name(static_cast<std::size_t>(std::max<ssize_t>(n, 0)) + 1, '\0');
    H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(),
                       H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    names.push_back(name);
  }
  return names;
}

double InputFile::number_attribute(const std::string& name, const std::string& object) const {
  const std::string where =
      "cannot read '" + path_.string() + "' attribute '" + name + "' of '" + object + "'";
  Handle attr(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, where);
  double value = 0.0;
  check(H5Aread(attr, H5T_NATIVE_DOUBLE, &value), where);
  return value;
}

std::int64_t InputFile::integer_attribute(const std::string& name) const {
  const std::string where = "cannot read '" + path_.string() + "' attribute '" + name + "'";
  Handle attr(H5Aopen(file_, name.c_str(), H5P_DEFAULT), H5Aclose, where);
  std::int64_t value = 0;
  check(H5Aread(attr, H5T_NATIVE_INT64, &value), where);
  return value;
}

std::string InputFile::text_attribute(const std::string& name) const {
  const std::string where = "cannot read '" + path_.string() + "' attribute '" + name + "'";
  Handle attr(H5Aopen(file_, name.c_str(), H5P_DEFAULT), H5Aclose, where);
  Handle type(H5Aget_type(attr), H5Tclose, where);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0) {
    throw std::runtime_error(where + ": not a fixed-length string");
  }
  std::string out(H5Tget_size(type), '\0');
  check(H5Aread(attr, type, out.data()), where);
  out.resize(std::strlen(out.c_str()));
  return out;
}

std::vector<double> read_doubles(const std::filesystem::path& file, const std::string& dataset) {
  return InputFile(file).doubles(dataset);
}

} // namespace decgpe::io
