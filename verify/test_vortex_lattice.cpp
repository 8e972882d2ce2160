// A vortex lattice (verify/vortex_lattice.hpp): the rotating quasi-2D ground state holds its
// vortices at the spacing of Feynman's density Ω/π (the count over the Thomas–Fermi disc falls
// short of ΩR² in a condensate this small: measured, not asserted).

#include "setup/case_setup.hpp"
#include "setup/ground_state.hpp"
#include "verify/lattice_params.hpp"
#include "verify/vortex_lattice.hpp"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>

namespace decgpe {
namespace {

TEST(VortexLattice, TheRotatingGroundStateHoldsItsVorticesAtFeynmansSpacing) {
  verify::VortexLatticeCase c{"cubic", 0.35, 30.0, 8.0, 0.9, 5.0, 0};
  c.seeded = static_cast<int>(std::lround(1.4 * c.feynman_count()));
  setup::RunSetup run = setup::prepare_run(setup::parse_case(
      verify::vortex_lattice_toml(c, verify::spacing_unit(c.lattice)), "vortex_lattice.toml"));
  const std::unique_ptr<Backend> backend = make_backend("openmp", run.problem);
  setup::settle_on_ground_state(run, *backend);
  const std::vector<verify::ZCrossing> v = verify::vortices_within(*backend, run, c.radius());
  const std::vector<double> nearest = verify::nearest_distances(v);
  int net = 0;
  for (const verify::ZCrossing& x : v) {
    net += x.charge;
    std::printf("vortex at (%.3f, %.3f) rho %.3f charge %d\n", x.at.x, x.at.y,
                std::hypot(x.at.x, x.at.y), x.charge);
  }
  std::printf("R_TF %.3f: %zu vortices (net %d) against Feynman's %.2f, seeded %d; nearest "
              "distances %.3f to %.3f against %.3f; %ld iterations, residual %.2e\n",
              c.radius(), v.size(), net, c.feynman_count(), c.seeded,
              *std::min_element(nearest.begin(), nearest.end()),
              *std::max_element(nearest.begin(), nearest.end()), c.feynman_spacing(),
              run.ground_state->iterations, run.ground_state->residual);
  // Every vortex turns with the frame (charge +1 through z = 0 upwards, Ω > 0); the relaxation
  // expelled the excess of the random start and keeps a lattice (measured: 6 of 19 seeded, centre
  // and a ring of 5).
  EXPECT_EQ(net, static_cast<int>(v.size()));
  EXPECT_GE(v.size(), 5U);
  EXPECT_LT(static_cast<int>(v.size()), c.seeded);
  // Feynman's density Ω/π is the triangular lattice of spacing √(2π/(√3Ω)) = 2.008: each vortex's
  // nearest neighbour measured 1.980 to 2.129 away. The count over the whole Thomas–Fermi disc
  // (R = 3.88) falls short of ΩR² = 13.6: no vortex sits in the outer 1.6 (docs/cases.md,
  // "Rotation"), so the count is not asserted against it.
  for (const double d : nearest) {
    EXPECT_NEAR(d, c.feynman_spacing(), 0.1 * c.feynman_spacing());
  }
  // The condensate's region (the default `vortex_region`) is V − ½Ω²ρ² < margin · μ, both of the
  // rotating frame: it holds every vortex of the disc (the lab's V cut it short before).
  const auto where = [](std::vector<verify::ZCrossing> crossings) {
    std::vector<std::pair<double, double>> at;
    for (const verify::ZCrossing& x : crossings) {
      at.emplace_back(x.at.x, x.at.y);
    }
    std::sort(at.begin(), at.end()); // the lines' order depends on where they end
    return at;
  };
  EXPECT_EQ(
      where(verify::vortices_within(*backend, run, c.radius(), setup::vortex_potential_cut(run))),
      where(v));
}

} // namespace
} // namespace decgpe
