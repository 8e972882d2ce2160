#include "io/hdf5_file.hpp"

#include "io/hdf5_handle.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <hdf5.h>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace decgpe::io {

namespace {

/// HDF5 prints its error stack by default; decgpe reports one line of its own instead.
void silence_hdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
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

void write_dataset(hid_t file, const std::string& path, hid_t type, const void* data,
                   const std::vector<hsize_t>& dims) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose,
               "cannot create a dataspace for " + path);
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "cannot create dataset " + path);
  check(H5Pset_create_intermediate_group(lcpl, 1), "cannot create the groups of " + path);
  Handle set(H5Dcreate2(file, path.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             "cannot create dataset " + path);
  check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "cannot write dataset " + path);
}

void write_attribute(hid_t object, const std::string& name, hid_t type, const void* data,
                     hsize_t count) {
  Handle space(count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose,
               "cannot create attribute " + name);
  Handle attr(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              "cannot create attribute " + name);
  check(H5Awrite(attr, type, data), "cannot write attribute " + name);
}

} // namespace

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
  const std::string what = "cannot write attribute " + name;
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
  check(H5Tset_size(type, value.empty() ? 1 : value.size()), what);
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), what);
  write_attribute(file_, name, type, value.empty() ? "" : value.data(), 0);
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

void ResultsFile::write(const std::string& path, std::span<const double> data,
                        std::vector<std::uint64_t> dims) {
  write_dataset(file_, path, H5T_NATIVE_DOUBLE, data.data(), {dims.begin(), dims.end()});
}
void ResultsFile::write(const std::string& path, std::span<const std::int64_t> data) {
  write_dataset(file_, path, H5T_NATIVE_INT64, data.data(), {data.size()});
}
void ResultsFile::write(const std::string& path, std::span<const Complex> data) {
  Handle type(make_complex_type(), H5Tclose, "cannot write dataset " + path);
  write_dataset(file_, path, type, data.data(), {data.size()});
}

void ResultsFile::commit() {
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  std::error_code ec;
  if (closed < 0) {
    std::filesystem::remove(temporary_, ec);
    throw std::runtime_error("cannot write output '" + path_.string() +
                             "': closing the file failed");
  }
  std::filesystem::rename(temporary_, path_, ec);
  if (ec) {
    std::filesystem::remove(temporary_, ec);
    throw std::runtime_error("cannot write output '" + path_.string() + "': " + ec.message());
  }
}

std::vector<double> read_doubles(const std::filesystem::path& file, const std::string& dataset) {
  silence_hdf5();
  const std::string where = "'" + file.string() + "' dataset '" + dataset + "'";
  if (!std::filesystem::exists(file)) {
    throw std::runtime_error("cannot read " + where + ": no such file");
  }
  Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
           "cannot open " + file.string());
  Handle set(H5Dopen2(f, dataset.c_str(), H5P_DEFAULT), H5Dclose,
             "cannot read " + where + ": no such dataset");
  Handle space(H5Dget_space(set), H5Sclose, "cannot read " + where);
  if (H5Sget_simple_extent_ndims(space) != 1) {
    throw std::runtime_error("cannot read " + where + ": expected a 1-D dataset");
  }
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  std::vector<double> out(n);
  check(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
        "cannot read " + where);
  return out;
}

} // namespace decgpe::io
