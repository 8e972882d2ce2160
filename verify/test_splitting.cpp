// The splitting-symmetry analysis (Fig 6) and the accuracy pipeline on the CPU: the fold count is
// found exactly on planted perturbations on every lattice, and a coarse short run of the whole
// pipeline writes what the reports need. The full-size check is test_splitting_full.cpp (gpu).

#include "hdf5/hdf5_file.hpp"
#include "setup/initial_state.hpp"
#include "solvers/splitting.hpp"
#include "verify/lattice_params.hpp"
#include "verify/run_command.hpp"
#include "verify/split_runs.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>

namespace decgpe {
namespace {

class PlantedFold : public ::testing::TestWithParam<std::string_view> {};

// An axisymmetric vortex with a planted m-fold density modulation of 1%: the analysis must name m,
// whatever the lattice's own symmetry (the cubic grid's 4-fold sampling pattern must not leak into
// m = 4).
TEST_P(PlantedFold, AnalysisFindsThePlantedFold) {
  const lattices::CellComplex& c = lattices::cell_complex(GetParam());
  const int n =
      std::max(4, static_cast<int>(std::lround(std::cbrt(60000.0 / c.cells_per_structure()))));
  const Grid grid =
      make_grid(c, {n, std::max(2, static_cast<int>(std::lround(n / c.box.y))), n}, 10.0 / n);
  const std::vector<Complex> psi0 = sample_normalised(grid, HarmonicVortex{2, 1.0}, 0.0);
  for (int m : {2, 3, 4, 5, 6}) {
    std::vector<Complex> psi(psi0);
    for (std::size_t i = 0; i < psi.size(); ++i) {
      const lattices::Vec3 r = grid.position(static_cast<std::int64_t>(i));
      psi[i] = std::sqrt(1.0 + 0.01 * std::cos(m * std::atan2(r.y, r.x) + 0.3)) * psi[i];
    }
    EXPECT_EQ(azimuthal_spectrum(grid, psi, psi0).fold, m) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(AllSix, PlantedFold, verify::all_lattices(), verify::lattice_name);

// Coarse and short: the whole accuracy pipeline (stationary vortex, eq. 15 domain, operation-count
// scale, stop on the error threshold) end to end on the CPU, writing the series and the plane the
// reports read.
TEST_F(Pipeline, CoarseRunWritesWhatTheReportsNeed) {
  std::ofstream(dir_ / "coarse.toml")
      << "lattice = \"bcc\"\noperations_per_time = 2e8\ndomain = \"auto\"\ng = 50.0\n[time]\n"
         "dt_fraction = 0.9\ndt_fraction_of = \"eq11\"\nend_time = 1.0\ndiagnostics_every = 20\n"
         "stop_when_error_exceeds = "
         "0.01\n"
         "[initial]\nkind = \"stationary_vortex\"\nkappa = 2\n";
  const verify::CommandResult r =
      verify::run_command("DECGPE_CACHE=" + (dir_ / "cache").string() + " " + DECGPE_EXECUTABLE +
                          " run " + (dir_ / "coarse.toml").string() + " --quiet --no-state --out " +
                          (dir_ / "coarse.h5").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path out = dir_ / "coarse.h5";
  EXPECT_GT(io::read_doubles(out, "/diagnostics/t").size(), 2u);
  EXPECT_EQ(io::read_doubles(out, "/analysis/azimuthal_amplitude").size(), 13u);
  EXPECT_GT(io::read_doubles(out, "/analysis/plane/density").size(), 100u);
  const double fold = fold_of(out);
  EXPECT_GE(fold, 2.0);
  EXPECT_LE(fold, 12.0);
}

} // namespace
} // namespace decgpe
