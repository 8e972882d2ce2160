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

/// Call first in a program, before any other HDF5 call: HDF5's exit handler is kept from closing a
/// file again whose close already failed (it crashes on a full disk), and its error stack printing
/// is turned off (decgpe reports one line of its own).
void init_hdf5();

/// An HDF5 file written under a temporary name in the target folder and renamed onto the final path
/// by commit() once it is on the disk (fsync of the file and the folder); destroying it uncommitted
/// deletes the temporary, so a failed run leaves nothing behind and the previous file under the
/// final name (a checkpoint) stays intact until the new one is complete.
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
  /// Single precision, where the reader needs no more (the visualisation fields).
  void write(const std::string& path, std::span<const float> data, std::vector<std::uint64_t> dims);
  void write(const std::string& path, std::span<const std::int64_t> data);
  /// 32-bit integers, where indices fit (the visualisation's cells).
  void write(const std::string& path, std::span<const std::int32_t> data);
  /// Complex values as a compound {r, i} (what h5py reads as complex128); with fletcher32, in
  /// chunks that carry HDF5's Fletcher-32 checksum, which every read checks (a damaged chunk fails
  /// the read instead of giving wrong values).
  enum class Checksum { none, fletcher32 };
  void write(const std::string& path, std::span<const Complex> data,
             Checksum checksum = Checksum::none);
  /// A text of any length as a scalar string dataset (attributes are limited to 64 KiB).
  void write_text(const std::string& path, const std::string& text);
  /// An attribute on a dataset or group.
  void attribute_of(const std::string& object, const std::string& name, double value);
  void attribute_of(const std::string& object, const std::string& name, const std::string& value);

  /// Rows [begin, end) of a virtual dataset, stored as dataset `path` (the virtual one's) of
  /// `file`, a name relative to this file's folder (HDF5 resolves it from there, so the two move
  /// together).
  struct VirtualPart {
    std::string file;
    std::uint64_t begin = 0, end = 0;
  };
  enum class Element { complex, single };
  /// A virtual dataset of `rows` rows of `width` values (width 1: one dimension) joined from
  /// `parts`: h5py, ParaView and InputFile read it like any other.
  void write_virtual(const std::string& path, Element element, std::uint64_t rows,
                     std::uint64_t width, const std::vector<VirtualPart>& parts);

  void commit();
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_, temporary_;
  std::int64_t file_ = -1;
};

/// An HDF5 file opened for reading; every read throws std::runtime_error naming the file and what.
class InputFile {
public:
  explicit InputFile(std::filesystem::path path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  bool has(const std::string& path) const;
  bool has_attribute(const std::string& name) const; ///< of the root
  std::vector<double> doubles(const std::string& dataset) const;
  /// A 2-D double dataset, row after row.
  std::vector<double> matrix(const std::string& dataset) const;
  std::vector<std::int64_t> integers(const std::string& dataset) const;
  /// Complex values: the dataset must hold compounds {r, i} of floats (throws otherwise).
  std::vector<Complex> complexes(const std::string& dataset) const;
  /// The element count of a 1-D dataset.
  std::uint64_t size(const std::string& dataset) const;
  /// `count` values of a 1-D dataset from `offset` on (a hyperslab: a slab's part of a whole-domain
  /// array, a virtual dataset's too); throws when they are not all in the dataset.
  std::vector<double> doubles(const std::string& dataset, std::uint64_t offset,
                              std::uint64_t count) const;
  std::vector<Complex> complexes(const std::string& dataset, std::uint64_t offset,
                                 std::uint64_t count) const;
  std::string text(const std::string& dataset) const;
  /// An attribute of the root, or of the dataset or group `object`.
  double number_attribute(const std::string& name, const std::string& object = "/") const;
  std::int64_t integer_attribute(const std::string& name) const;
  std::string text_attribute(const std::string& name) const;
  /// The names of the links in group `group` ("" when there is no such group).
  std::vector<std::string> members(const std::string& group) const;
  std::int64_t id() const { return file_; }

private:
  /// The element count of a dataset of this rank; throws for another rank.
  std::uint64_t length(std::int64_t set, const std::string& dataset, int rank = 1) const;
  void read_range(const std::string& dataset, std::int64_t type, std::uint64_t offset,
                  std::uint64_t count, void* out) const;
  std::filesystem::path path_;
  std::int64_t file_ = -1;
};

/// Reads a 1-D double dataset; throws std::runtime_error naming the file and dataset.
std::vector<double> read_doubles(const std::filesystem::path& file, const std::string& dataset);

} // namespace decgpe::io
