#pragma once
// HDF5 through its C API (present in every HDF5 installation, serial or parallel), wrapped so that
// failures become one-line exceptions and a results file appears under its final name only when it
// is complete.

#include "solvers/complex.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace decgpe::io {

/// An HDF5 file written under a temporary name in the target folder and renamed onto the final path
/// by commit(); destroying it uncommitted deletes the temporary, so a failed run leaves nothing
/// behind.
class ResultsFile {
public:
  /// Creates the folder if needed; throws std::runtime_error "cannot write output '<path>':
  /// <reason>".
  explicit ResultsFile(std::filesystem::path path);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  /// Root attributes.
  void attribute(const std::string& name, const std::string& value);
  void attribute(const std::string& name, double value);
  void attribute(const std::string& name, std::int64_t value);
  void attribute(const std::string& name, std::span<const double> values);
  void attribute(const std::string& name, std::span<const std::int64_t> values);

  /// Datasets at slash-separated paths; intermediate groups are created. `dims` multiply to the
  /// data size.
  void write(const std::string& path, std::span<const double> data,
             std::vector<std::uint64_t> dims);
  void write(const std::string& path, std::span<const std::int64_t> data);
  /// Complex values as a compound {r, i} (what h5py reads as complex128).
  void write(const std::string& path, std::span<const Complex> data);
  /// A double attribute on a dataset or group.
  void attribute_of(const std::string& object, const std::string& name, double value);

  void commit();
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_, temporary_;
  std::int64_t file_ = -1;
};

/// Reads a 1-D double dataset; throws std::runtime_error naming the file and dataset.
std::vector<double> read_doubles(const std::filesystem::path& file, const std::string& dataset);

} // namespace decgpe::io
