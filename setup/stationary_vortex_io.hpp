#pragma once
// The stationary vortex's cache files, through HDF5's C API: root attributes for the parameters,
// the discretisation and the results; datasets for the profile grid, f on it, and the modal
// coefficients (what a load restores, so that it reproduces the solve bit for bit).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace decgpe::vortex_cache {

/// Changes whenever the file layout or the discretisation changes meaning.
inline constexpr std::int64_t kFormatVersion = 2;

struct Record {
  double lambda = 0.0;
  double g = 0.0;
  std::int64_t kappa = 0;
  std::string key; ///< how the resolution was chosen: "auto" or "n<radial>x<axial>"
  std::int64_t radial = 0, axial = 0;
  double mu = 0.0;
  double residual = 0.0;
  std::vector<double> rho, z; ///< the profile grid
  std::vector<double> f;      ///< radial × axial, radial index slowest
  std::vector<double> modal;  ///< radial × axial
};

/// Throws std::runtime_error with the reason when `path` is not a readable cache file of this
/// format version.
Record read(const std::filesystem::path& path);

/// Writes under a temporary name in the same folder (created if needed) and renames it onto `path`,
/// so a reader never sees a partial file. Throws std::runtime_error.
void write(const std::filesystem::path& path, const Record& record);

} // namespace decgpe::vortex_cache
