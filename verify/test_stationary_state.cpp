// The lattice's own stationary state (solvers/stationary_state.hpp, setup/lattice_state.hpp):
// Newton–Krylov reaches the residual, the state stays put under the leapfrog where the sampled
// continuum state does not, and the cache gives back the same state.

#include "hdf5/hdf5_file.hpp"
#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "setup/lattice_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/schemes/scheme.hpp"
#include "solvers/stationary_state.hpp"
#include "verify/bitwise.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

/// A κ = 2 vortex at g = 30 on a coarse grid: the sampled state is far from the lattice's own
/// (residual ~0.4), so the solver has work to do, and it is small enough for a CPU test.
std::string vortex_case(const std::string& lattice, bool on_lattice) {
  return "lattice = \"" + lattice + R"("
h = 0.6
domain = "auto"
g = 30.0
[time]
dt_fraction = 0.25
steps = 1000
[initial]
kind = "stationary_vortex"
kappa = 2
)" + (on_lattice ? "lattice_stationary = true\n" : "");
}

class StationaryState : public ::testing::TestWithParam<const char*> {
protected:
  void SetUp() override {
    cache_ = fs::temp_directory_path() / ("decgpe_lattice_state_" + std::string(GetParam()) + "_" +
                                          std::to_string(getpid())); // private to this process
    fs::remove_all(cache_);
  }
  void TearDown() override { fs::remove_all(cache_); }

  setup::RunSetup prepared(bool on_lattice) const {
    return setup::prepare_run(setup::parse_case(vortex_case(GetParam(), on_lattice), "c.toml"));
  }
  fs::path cache_;
};

/// ‖ψ − ⟨ψ_h|ψ⟩ψ_h‖ (volume-weighted): the part of ψ that is not the stationary state.
double departure(const Grid& grid, std::span<const Complex> psi, std::span<const Complex> psi_h) {
  Complex overlap{0.0, 0.0};
  for (std::size_t i = 0; i < psi.size(); ++i) {
    overlap =
        overlap + grid.volume[i % static_cast<std::size_t>(grid.ms)] * conj_mul(psi_h[i], psi[i]);
  }
  double sum = 0.0;
  for (std::size_t i = 0; i < psi.size(); ++i) {
    sum +=
        grid.volume[i % static_cast<std::size_t>(grid.ms)] * norm2(psi[i] - mul(overlap, psi_h[i]));
  }
  return std::sqrt(sum);
}

/// ψ after the case's 1000 leapfrog steps from its start.
std::vector<Complex> after_leapfrog(const setup::RunSetup& run, Backend& backend) {
  const auto scheme = make_scheme("leapfrog", backend, run.dt);
  scheme->start({run.current, run.current, run.previous});
  scheme->advance(run.schedule.steps);
  std::vector<Complex> psi(run.current.size());
  scheme->download(0, psi);
  return psi;
}

TEST_P(StationaryState, ReachesItsResidualAndStaysPutUnderTheLeapfrog) {
  setup::RunSetup run = prepared(true);
  const auto backend = make_backend("openmp", run.problem);
  setup::settle_on_lattice(run, *backend, cache_);
  const setup::LatticeStateInfo& info = *run.lattice_state;
  EXPECT_EQ(info.cache, "written");
  EXPECT_GT(info.start_residual, 1e-2);
  EXPECT_LE(info.residual, 1e-10);
  EXPECT_NEAR(info.mu, info.continuum_mu, 0.02 * info.continuum_mu) << "mu_h " << info.mu;
  EXPECT_EQ(run.mu, info.mu);
  // 1000 steps (t ≈ 2.5) from ψ_h leave it to 1e-8; from the sampled state, not by far.
  const double stays = departure(run.problem.grid, after_leapfrog(run, *backend), run.current);
  EXPECT_LE(stays, 1e-8);
  const setup::RunSetup sampled = prepared(false);
  const double moves =
      departure(sampled.problem.grid, after_leapfrog(sampled, *backend), run.current);
  EXPECT_GT(moves, 1e-4);
  std::printf("%s: mu_h %.10f (continuum %.10f), residual %.2e from %.2e; departure after 1000 "
              "leapfrog steps %.2e (from the sampled state %.2e)\n",
              GetParam(), info.mu, info.continuum_mu, info.residual, info.start_residual, stays,
              moves);
}

TEST(LatticeStateCache, GivesBackTheSameStateAndSolvesAgainWhenTheFileIsNoSolution) {
  const fs::path cache =
      fs::temp_directory_path() / ("decgpe_lattice_state_cache_" + std::to_string(getpid()));
  fs::remove_all(cache);
  const auto prepared = [] {
    return setup::prepare_run(setup::parse_case(vortex_case("bcc", true), "c.toml"));
  };
  setup::RunSetup first = prepared();
  const std::vector<Complex> sampled = first.current;
  const auto backend = make_backend("openmp", first.problem);
  setup::settle_on_lattice(first, *backend, cache);
  setup::RunSetup again = prepared();
  setup::settle_on_lattice(again, *backend, cache);
  EXPECT_EQ(again.lattice_state->cache, "loaded");
  EXPECT_TRUE(verify::bitwise_equal(first.current, again.current));
  // The sampled state under the cached name: readable, the right size, and no solution.
  for (const fs::directory_entry& e : fs::directory_iterator(cache)) {
    io::ResultsFile f(e.path());
    f.write("/psi", sampled);
    f.commit();
  }
  setup::RunSetup third = prepared();
  setup::settle_on_lattice(third, *backend, cache);
  EXPECT_EQ(third.lattice_state->cache, "written");
  EXPECT_TRUE(verify::bitwise_equal(first.current, third.current));
  fs::remove_all(cache);
}

INSTANTIATE_TEST_SUITE_P(Lattices, StationaryState, ::testing::Values("bcc", "a15"));

} // namespace
} // namespace decgpe
