#pragma once
// A file of whole-domain datasets written from a domain split over ranks without the domain ever
// on one rank: every rank writes its owned cells into a part file of its own beside the file
// (<file>.parts/<tag>-rank<r>.h5), and the first rank's file joins them into one dataset per path,
// an HDF5 virtual dataset, which h5py, ParaView and decgpe's readers read like any other. Serial
// HDF5 is enough, and the parts' names are relative, so the file and its .parts folder move
// together. In one process the datasets go whole into the file itself.
//
// The tag is new for every write (drawn by the first rank), so a new checkpoint's parts never
// overwrite those its predecessor still reads; once the first rank has committed the file, the
// parts of every other tag are removed.

#include "hdf5/hdf5_file.hpp"
#include "solvers/scaleout/decomposition.hpp"

#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace decgpe::io {

class DomainOutput {
public:
  /// `file`: the first rank's file at `path`, open (null on the other ranks); `grid` this rank's
  /// part of the domain. Collective.
  DomainOutput(ResultsFile* file, const std::filesystem::path& path, const Grid& grid,
               const scaleout::Decomposition& layout);

  /// The whole domain's dataset from each rank's values of its owned cells (owned()). Collective,
  /// like every call here but attribute_of().
  void write(const std::string& dataset, std::span<const Complex> owned,
             ResultsFile::Checksum checksum = ResultsFile::Checksum::none);
  /// The whole domain's rows of `width` floats from each rank's rows of its owned cells.
  void write(const std::string& dataset, std::span<const float> owned, std::uint64_t width);
  /// An attribute of the joined dataset or of a group (the first rank's file only).
  void attribute_of(const std::string& object, const std::string& name, double value);
  void attribute_of(const std::string& object, const std::string& name, const std::string& value);

  /// Every rank's part on the disk; before the first rank commits the file.
  void commit();
  /// Once the first rank has committed the file: removes the parts of other tags (the superseded
  /// file's) and, in one process, any .parts folder a run over ranks left at this path.
  void remove_superseded() const;

  /// This rank's owned values of its stored ones.
  std::span<const Complex> owned(std::span<const Complex> stored) const;
  const Grid& grid() const { return grid_; }

private:
  /// Where each rank's rows are.
  std::vector<ResultsFile::VirtualPart> parts() const;

  ResultsFile* file_;
  std::filesystem::path path_;
  const Grid& grid_;
  const scaleout::Decomposition& layout_;
  std::string tag_;
  std::optional<ResultsFile> part_; ///< this rank's, over ranks
};

/// Removes the file at `path` and its parts (a checkpoint superseded by complete results).
void remove_with_parts(const std::filesystem::path& path);

} // namespace decgpe::io
