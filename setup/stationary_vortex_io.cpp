#include "setup/stationary_vortex_io.hpp"

#include "hdf5/hdf5_handle.hpp"

#include <chrono>
#include <hdf5.h>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace decgpe::vortex_cache {

namespace {

using hdf5::check;
using hdf5::Handle;

void write_scalar(hid_t file, const char* name, hid_t type, const void* value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "cannot create a dataspace");
  Handle attr(H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("cannot create attribute ") + name);
  check(H5Awrite(attr, type, value), std::string("cannot write attribute ") + name);
}

void write_string(hid_t file, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create a string type");
  check(H5Tset_size(type, value.empty() ? 1 : value.size()), "cannot size a string type");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), "cannot pad a string type");
  write_scalar(file, name, type, value.empty() ? "" : value.data());
}

void write_array(hid_t file, const char* name, const std::vector<double>& data,
                 std::vector<hsize_t> dims) {
  Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose,
               "cannot create a dataspace");
  Handle set(
      H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, std::string("cannot create dataset ") + name);
  check(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
        std::string("cannot write dataset ") + name);
}

/// A scalar attribute converted to `type` (HDF5 converts between numeric types, and fails on a
/// string or an array).
template <typename T> T read_scalar(hid_t file, const char* name, hid_t type) {
  Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, std::string("no attribute ") + name);
  Handle space(H5Aget_space(attr), H5Sclose, std::string("unreadable attribute ") + name);
  if (H5Sget_simple_extent_type(space) != H5S_SCALAR) {
    throw std::runtime_error(std::string("attribute ") + name + " is not a scalar");
  }
  T value{};
  check(H5Aread(attr, type, &value), std::string("unreadable attribute ") + name);
  return value;
}

std::string read_string(hid_t file, const char* name) {
  Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, std::string("no attribute ") + name);
  Handle type(H5Aget_type(attr), H5Tclose, std::string("unreadable attribute ") + name);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0) {
    throw std::runtime_error(std::string("attribute ") + name + " is not a fixed-length string");
  }
  std::string value(H5Tget_size(type), '\0');
  check(H5Aread(attr, type, value.data()), std::string("unreadable attribute ") + name);
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return value;
}

std::vector<double> read_array(hid_t file, const char* name, std::vector<hsize_t> dims) {
  Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, std::string("no dataset ") + name);
  Handle space(H5Dget_space(set), H5Sclose, std::string("unreadable dataset ") + name);
  std::vector<hsize_t> stored(dims.size());
  if (H5Sget_simple_extent_ndims(space) != int(dims.size()) ||
      H5Sget_simple_extent_dims(space, stored.data(), nullptr) < 0 || stored != dims) {
    throw std::runtime_error(std::string("dataset ") + name + " has the wrong shape");
  }
  std::size_t size = 1;
  for (const hsize_t d : dims) {
    size *= d;
  }
  std::vector<double> data(size);
  check(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
        std::string("unreadable dataset ") + name);
  return data;
}

} // namespace

Record read(const std::filesystem::path& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // one-line exceptions instead of HDF5's stack dumps
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
              "not a readable HDF5 file");
  const auto version = read_scalar<std::int64_t>(file, "format_version", H5T_NATIVE_INT64);
  if (version != kFormatVersion) {
    throw std::runtime_error("format version " + std::to_string(version) + ", expected " +
                             std::to_string(kFormatVersion));
  }
  Record r;
  r.lambda = read_scalar<double>(file, "lambda", H5T_NATIVE_DOUBLE);
  r.g = read_scalar<double>(file, "g", H5T_NATIVE_DOUBLE);
  r.kappa = read_scalar<std::int64_t>(file, "kappa", H5T_NATIVE_INT64);
  r.key = read_string(file, "resolution_key");
  r.radial = read_scalar<std::int64_t>(file, "radial_modes", H5T_NATIVE_INT64);
  r.axial = read_scalar<std::int64_t>(file, "axial_modes", H5T_NATIVE_INT64);
  r.mu = read_scalar<double>(file, "mu", H5T_NATIVE_DOUBLE);
  r.residual = read_scalar<double>(file, "residual", H5T_NATIVE_DOUBLE);
  if (r.radial < 1 || r.axial < 1 || r.radial > 4096 || r.axial > 4096) {
    throw std::runtime_error("implausible mode counts");
  }
  const auto nr = hsize_t(r.radial), nz = hsize_t(r.axial);
  r.rho = read_array(file, "rho", {nr});
  r.z = read_array(file, "z", {nz});
  r.f = read_array(file, "f", {nr, nz});
  r.modal = read_array(file, "modal", {nr, nz});
  return r;
}

void write(const std::filesystem::path& path, const Record& r) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error("cannot write vortex cache '" + path.string() + "': " + why);
  };
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      fail(ec.message());
    }
  }
  // Unique among processes and hosts sharing the folder (ranks of one run may all solve at once).
  std::filesystem::path temporary = path;
  temporary += ".tmp-" + std::to_string(getpid()) + "-" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  try {
    {
      Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                  "cannot create " + temporary.string());
      const std::int64_t version = kFormatVersion;
      write_scalar(file, "format_version", H5T_NATIVE_INT64, &version);
      write_scalar(file, "lambda", H5T_NATIVE_DOUBLE, &r.lambda);
      write_scalar(file, "g", H5T_NATIVE_DOUBLE, &r.g);
      write_scalar(file, "kappa", H5T_NATIVE_INT64, &r.kappa);
      write_string(file, "resolution_key", r.key);
      write_scalar(file, "radial_modes", H5T_NATIVE_INT64, &r.radial);
      write_scalar(file, "axial_modes", H5T_NATIVE_INT64, &r.axial);
      write_scalar(file, "mu", H5T_NATIVE_DOUBLE, &r.mu);
      write_scalar(file, "residual", H5T_NATIVE_DOUBLE, &r.residual);
      write_array(file, "rho", r.rho, {hsize_t(r.rho.size())});
      write_array(file, "z", r.z, {hsize_t(r.z.size())});
      write_array(file, "f", r.f, {hsize_t(r.rho.size()), hsize_t(r.z.size())});
      write_array(file, "modal", r.modal, {hsize_t(r.rho.size()), hsize_t(r.z.size())});
      check(file.close(), "cannot close " + temporary.string());
    }
    std::filesystem::rename(temporary, path);
  } catch (const std::exception& e) {
    std::filesystem::remove(temporary, ec);
    fail(e.what());
  }
}

} // namespace decgpe::vortex_cache
