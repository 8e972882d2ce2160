// The vortex-line detector (issue 33) on states whose lines are known: straight vortices on and off
// the axis, the κ = 10 harmonic vortex, a vortex ring, and a random-phase field for conservation;
// on the six crystals and cubic4.

#include "analysis/vortex_lines.hpp"
#include "setup/initial_state.hpp"
#include "solvers/backend_registry.hpp"
#include "verify/lattice_params.hpp"
#include "verify/random_phases.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numbers>

namespace decgpe {
namespace {

using analysis::LineEnd;
using analysis::VortexLine;
using lattices::Vec3;

constexpr double kPi = std::numbers::pi;

TEST(WrapTurns, RingsOfEvenlySpacedPhasesWindByTheirCharge) {
  for (const int n : {3, 4, 5, 6, 9}) {
    for (int m = -(n - 1) / 2; m <= (n - 1) / 2; ++m) {
      std::vector<Complex> ring;
      for (int k = 0; k < n; ++k) {
        const double theta = 2.0 * kPi * m * k / n + 0.3;
        ring.push_back({2.0 * std::cos(theta), 2.0 * std::sin(theta)});
      }
      int turns = 0;
      for (int k = 0; k < n; ++k) {
        turns += step_turns(ring[k], k, ring[(k + 1) % n], (k + 1) % n);
      }
      EXPECT_EQ(turns, m) << n << " cells";
    }
  }
}

// Exactly antipodal: wrap(θ_b − θ_a) = π from the lower index, −π back; ψ = 0 has θ = 0.
TEST(WrapTurns, TiesAndZerosFollowTheStatedRule) {
  const Complex up{0.0, 1.0}, down{0.0, -1.0}, left{-1.0, 0.0}, zero{0.0, 0.0};
  EXPECT_EQ(wrap_turns(up, down), 1);   // π/2 → −π/2: wrap(−π) = π, one turn added
  EXPECT_EQ(wrap_turns(down, up), 0);   // −π/2 → π/2: +π stays
  EXPECT_EQ(wrap_turns(left, zero), 1); // π → 0: wrap(−π) = π
  EXPECT_EQ(wrap_turns(zero, left), 0);
  for (const auto& [a, b] : {std::pair{up, down}, std::pair{left, zero}, std::pair{up, left}}) {
    EXPECT_EQ(step_turns(a, 3, b, 7), -step_turns(b, 7, a, 3));
  }
}

class Lines : public ::testing::TestWithParam<std::string_view> {
protected:
  /// About 6 units across in x (8 structures; the z phase's box is √3 longer in y).
  Grid grid() const {
    const lattices::CellComplex& c = lattices::cell_complex(GetParam());
    return make_grid(c, {8, 8, 8}, 0.75);
  }
  /// The largest cell diameter at the grid's scale: "within a cell" below.
  static double cell_size(const Grid& g) {
    double r = 0.0;
    for (const lattices::Cell& cell : lattices::cell_complex(g.lattice).cells) {
      r = std::max(r, cell.circumradius);
    }
    return 2.0 * r * g.h;
  }
  template <class F> static std::vector<Complex> imprint(const Grid& g, F&& f) {
    std::vector<Complex> psi(static_cast<std::size_t>(g.cells()));
    for (std::int64_t i = 0; i < g.cells(); ++i) {
      psi[static_cast<std::size_t>(i)] = f(g.position(i));
    }
    return psi;
  }
  static std::vector<PiercedEdge> pierced(const Grid& g, const std::vector<Complex>& psi,
                                          double potential_cut = kEveryRing) {
    std::vector<PiercedEdge> out;
    pierced_edges(Problem{g, {}, 0.0}, make_ring_table(g), psi.data(), 0, g.size[2], potential_cut,
                  out);
    return out;
  }
  static std::vector<VortexLine> lines(const Grid& g, const std::vector<Complex>& psi) {
    return analysis::vortex_lines(analysis::PrimalEdges(g), pierced(g, psi));
  }
  /// Σ charge × the signed crossings of the plane z = z0: the flux through it.
  static int flux_through_plane(const std::vector<VortexLine>& lines, double z0) {
    int total = 0;
    for (const VortexLine& line : lines) {
      const std::size_t n = line.points.size();
      for (std::size_t k = 0; k + (line.closed ? 0 : 1) < n; ++k) {
        const double a = line.points[k].z - z0, b = line.points[(k + 1) % n].z - z0;
        total += a < 0.0 && b > 0.0 ? line.charge : (a > 0.0 && b < 0.0 ? -line.charge : 0);
      }
    }
    return total;
  }
  static double max_distance_from(const VortexLine& line, double x0, double y0) {
    double d = 0.0;
    for (const Vec3& p : line.points) {
      d = std::max(d, std::hypot(p.x - x0, p.y - y0));
    }
    return d;
  }
  static double height(const Grid& g) { return g.size[2] * g.box.z; }
  static std::vector<PiercedEdge> on_backend(std::string_view name, const Grid& g,
                                             const std::vector<Complex>& psi,
                                             double potential_cut = kEveryRing) {
    const Problem p{g, {}, 0.0};
    const std::unique_ptr<Backend> backend = make_backend(name, p);
    const VectorId v = backend->create_vector();
    backend->upload(v, psi);
    return backend->vortex_flux(v, potential_cut);
  }
};

// One open line along the axis from bottom to top, charge 1 upwards.
TEST_P(Lines, StraightVortexIsOneLineAlongTheAxis) {
  const Grid g = grid();
  const std::vector<VortexLine> found = lines(g, sample(g, HarmonicVortex{1, 1.0}, 0.0, 1.0));
  ASSERT_EQ(found.size(), 1u);
  const VortexLine& line = found.front();
  EXPECT_EQ(line.charge, 1);
  EXPECT_FALSE(line.closed);
  EXPECT_EQ(line.ends[0], LineEnd::boundary);
  EXPECT_EQ(line.ends[1], LineEnd::boundary);
  EXPECT_LT(line.points.front().z, line.points.back().z); // charge counted upwards
  EXPECT_LE(max_distance_from(line, 0.0, 0.0), cell_size(g));
  const double extent = line.points.back().z - line.points.front().z;
  EXPECT_NEAR(extent, height(g), 2.0 * cell_size(g)); // a cell short at each face at most
  RecordProperty("length_over_height", std::to_string(analysis::length(line) / height(g)));
}

TEST_P(Lines, DisplacedVortexIsOneLineAtTheDisplacement) {
  const Grid g = grid();
  const double x0 = 0.83, y0 = -0.61;
  const auto psi = imprint(g, [&](const Vec3& r) { return Complex{r.x - x0, r.y - y0}; });
  const std::vector<VortexLine> found = lines(g, psi);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().charge, 1);
  EXPECT_FALSE(found.front().closed);
  EXPECT_LE(max_distance_from(found.front(), x0, y0), cell_size(g));
}

// (x + iy)^10 winds 10 times about the axis; at the core the phase is not resolved by the cells
// (ten turns over a ring of a few cells), so the detector sees lines of smaller charge there.
// What it must see: all of them near the axis, flux 10 through every plane across it.
TEST_P(Lines, KappaTenVortexCarriesFluxTenNearTheAxis) {
  const Grid g = grid();
  const std::vector<VortexLine> found = lines(g, sample(g, HarmonicVortex{10, 1.0}, 0.0, 1.0));
  ASSERT_FALSE(found.empty());
  for (const double z0 : {-1.2345, 0.0123, 1.7})
    EXPECT_EQ(flux_through_plane(found, z0), 10) << "z = " << z0;
  int largest = 0;
  for (const VortexLine& line : found) {
    EXPECT_LE(max_distance_from(line, 0.0, 0.0), 3.0 * cell_size(g));
    largest = std::max(largest, line.charge);
  }
  RecordProperty("lines", std::to_string(found.size()));
  RecordProperty("largest_charge", std::to_string(largest));
}

TEST_P(Lines, VortexRingIsOneClosedLineOfItsRadius) {
  const Grid g = grid();
  const double radius = 1.6;
  const auto psi = imprint(g, [&](const Vec3& r) {
    return Complex{std::hypot(r.x, r.y) - radius, r.z};
  });
  const std::vector<VortexLine> found = lines(g, psi);
  ASSERT_EQ(found.size(), 1u);
  const VortexLine& line = found.front();
  EXPECT_TRUE(line.closed);
  EXPECT_EQ(line.charge, 1);
  for (const Vec3& p : line.points) {
    EXPECT_NEAR(std::hypot(p.x, p.y), radius, cell_size(g));
    EXPECT_NEAR(p.z, 0.0, cell_size(g));
  }
  // The line runs along primal edges, which zigzag about the circle: recorded, not bounded.
  RecordProperty("length_over_circumference",
                 std::to_string(analysis::length(line) / (2.0 * kPi * radius)));
}

// Whatever the phases, the fluxes of the edges at every measured vertex sum to zero, and the lines
// use every pierced edge once, closed or ending on the boundary (no charge above 1: no junction).
TEST_P(Lines, RandomPhasesConserveFluxAtEveryVertex) {
  const Grid g = grid();
  const std::vector<PiercedEdge> edges = pierced(g, verify::random_phases(g));
  const analysis::PrimalEdges primal(g);
  std::map<analysis::Vertex, int> divergence;
  int largest = 0;
  for (const PiercedEdge& e : edges) {
    divergence[primal.from(e.edge)] += e.flux;
    divergence[primal.to(e.edge)] -= e.flux;
    largest = std::max(largest, std::abs(e.flux));
  }
  int interior = 0;
  for (const auto& [vertex, net] : divergence) {
    if (primal.interior(vertex)) {
      ++interior;
      EXPECT_EQ(net, 0);
    }
  }
  EXPECT_GT(interior, 100); // a test that sees many lines
  const std::vector<VortexLine> found = analysis::vortex_lines(primal, edges);
  std::size_t segments = 0;
  for (const VortexLine& line : found) {
    segments += line.points.size() - (line.closed ? 0 : 1);
    if (!line.closed && largest == 1) {
      EXPECT_EQ(line.ends[0], LineEnd::boundary);
      EXPECT_EQ(line.ends[1], LineEnd::boundary);
    }
  }
  EXPECT_EQ(segments, edges.size());
}

// The backends' kernel against the host detector: the same list, bit for bit.
TEST_P(Lines, ReferenceAndOpenMPFindTheSameEdges) {
  const Grid g = grid();
  for (const std::vector<Complex>& psi :
       {verify::random_phases(g), sample(g, HarmonicVortex{10, 1.0}, 0.0, 1.0)}) {
    const std::vector<PiercedEdge> host = pierced(g, psi);
    ASSERT_FALSE(host.empty());
    EXPECT_EQ(on_backend("reference", g, psi), host);
    EXPECT_EQ(on_backend("openmp", g, psi), host);
  }
}

// In a region V < cut the edges are the whole domain's edges all of whose ring cells have V below
// the cut (V as Potential::at gives it for the cell's global index), on every backend; the lines
// then end where the rest of their flux runs through rings that leave it (LineEnd::region).
TEST_P(Lines, ARegionKeepsExactlyTheRingsInsideIt) {
  const Grid g = grid();
  const Potential trap; // harmonic, λ = 1, as pierced() and on_backend() measure with
  const std::vector<Complex> psi = verify::random_phases(g);
  const double cut = 0.25 * trap.at(g, 0); // a ball of half the distance to a corner
  const RingTable rings = make_ring_table(g);
  const RingGrid rg = ring_grid(g);
  std::vector<PiercedEdge> expected;
  for (const PiercedEdge& e : pierced(g, psi)) {
    const std::int64_t instance = e.edge / rings.edges();
    const int edge = static_cast<int>(e.edge % rings.edges());
    const int sx = static_cast<int>(instance % g.size[0]);
    const int sy = static_cast<int>(instance / g.size[0] % g.size[1]);
    const int sz = static_cast<int>(instance / (std::int64_t{g.size[0]} * g.size[1]));
    bool inside = true;
    for (int k = rings.begin[edge]; k < rings.begin[edge + 1]; ++k) {
      std::int64_t j = 0;
      ASSERT_TRUE(ring_cell(rg, rings.entries[k], sx, sy, sz, j));
      inside = inside && trap.at(g, j) < cut;
    }
    if (inside) {
      expected.push_back(e);
    }
  }
  const std::vector<PiercedEdge> kept = pierced(g, psi, cut);
  EXPECT_EQ(kept, expected);
  EXPECT_GT(kept.size(), 20U);
  EXPECT_LT(2 * kept.size(), pierced(g, psi).size()); // the region has something to drop
  EXPECT_EQ(on_backend("reference", g, psi, cut), kept);
  EXPECT_EQ(on_backend("openmp", g, psi, cut), kept);
  int region_ends = 0;
  for (const VortexLine& line : analysis::vortex_lines(analysis::PrimalEdges(g), kept)) {
    region_ends +=
        line.closed ? 0 : static_cast<int>(std::ranges::count(line.ends, LineEnd::region));
  }
  EXPECT_GT(region_ends, 0);
}

// In a rotating frame the region is V − ½Ω²ρ² < cut (μ is the rotating frame's, and so is the
// potential the kernels step with): at Ω = 0.9 it reaches 2.3 times as far out in ρ as the lab's V
// would, and every backend keeps the same rings.
TEST_P(Lines, ARotatingRegionIsTheRotatingFramesPotential) {
  Problem p{grid(), {}, 0.0};
  p.potential.rotation.omega = 0.9;
  const std::vector<Complex> psi = verify::random_phases(p.grid);
  const double cut = 0.1 * p.potential.at(p.grid, 0);
  const RingTable rings = make_ring_table(p.grid);
  std::vector<PiercedEdge> kept;
  pierced_edges(p, rings, psi.data(), 0, p.grid.size[2], cut, kept);
  std::vector<PiercedEdge> expected;
  for (const PiercedEdge& e : pierced(p.grid, psi)) {
    const std::int64_t instance = e.edge / rings.edges();
    const int edge = static_cast<int>(e.edge % rings.edges());
    const int sx = static_cast<int>(instance % p.grid.size[0]);
    const int sy = static_cast<int>(instance / p.grid.size[0] % p.grid.size[1]);
    const int sz = static_cast<int>(instance / (std::int64_t{p.grid.size[0]} * p.grid.size[1]));
    bool inside = true;
    for (int k = rings.begin[edge]; k < rings.begin[edge + 1]; ++k) {
      std::int64_t j = 0;
      ASSERT_TRUE(ring_cell(ring_grid(p.grid), rings.entries[k], sx, sy, sz, j));
      inside = inside && p.potential.in_frame(p.grid, j) < cut;
    }
    if (inside) {
      expected.push_back(e);
    }
  }
  EXPECT_EQ(kept, expected);
  EXPECT_GT(kept.size(), 2 * pierced(p.grid, psi, cut).size()); // the lab's region: far fewer
  for (const std::string_view name : {"reference", "openmp"}) {
    const std::unique_ptr<Backend> backend = make_backend(name, p);
    const VectorId v = backend->create_vector();
    backend->upload(v, psi);
    EXPECT_EQ(backend->vortex_flux(v, cut), kept) << name;
  }
}

/// The join the header states, followed literally with a map of vertices to their strands, for
/// vortex_lines (which sorts numbered ends instead) to reproduce line for line, bit for bit.
class JoinedByTheRule {
public:
  JoinedByTheRule(const analysis::PrimalEdges& primal, const std::vector<PiercedEdge>& pierced)
      : primal_(primal) {
    for (const PiercedEdge& p : pierced) {
      const analysis::Vertex a = primal.from(p.edge), b = primal.to(p.edge);
      const Strand s = p.flux > 0 ? Strand{a, b, p.flux} : Strand{b, a, -p.flux};
      at_[s.head].in.push_back(static_cast<int>(strands_.size()));
      at_[s.head].net += s.charge;
      at_[s.tail].out.push_back(static_cast<int>(strands_.size()));
      at_[s.tail].net -= s.charge;
      strands_.push_back(s);
    }
    pair();
  }

  std::vector<VortexLine> lines() {
    std::vector<VortexLine> out;
    used_.assign(strands_.size(), false);
    for (int s = 0; s < static_cast<int>(strands_.size()); ++s) {
      if (previous_[s] < 0) {
        out.push_back(line_from(s));
      }
    }
    for (int s = 0; s < static_cast<int>(strands_.size()); ++s) {
      if (!used_[s]) {
        out.push_back(line_from(s));
      }
    }
    return out;
  }

private:
  struct Strand {
    analysis::Vertex tail, head;
    int charge;
  };
  struct Ends {
    std::vector<int> in, out; // in edge-id order
    int net = 0;
  };

  void pair() {
    next_.assign(strands_.size(), -1);
    previous_.assign(strands_.size(), -1);
    for (const auto& [vertex, ends] : at_) {
      for (const int in : ends.in) {
        for (const int out : ends.out) {
          if (previous_[out] < 0 && strands_[out].charge == strands_[in].charge) {
            next_[in] = out;
            previous_[out] = in;
            break;
          }
        }
      }
    }
  }
  LineEnd end_at(const analysis::Vertex& v) const {
    if (!primal_.interior(v)) {
      return LineEnd::boundary;
    }
    return at_.at(v).net == 0 ? LineEnd::junction : LineEnd::region;
  }
  VortexLine line_from(int first) {
    VortexLine line{{primal_.position(strands_[first].tail)}, strands_[first].charge};
    for (int s = first;; s = next_[s]) {
      used_[s] = true;
      if (next_[s] == first) {
        line.closed = true;
        return line;
      }
      line.points.push_back(primal_.position(strands_[s].head));
      if (next_[s] < 0) {
        line.ends = {end_at(strands_[first].tail), end_at(strands_[s].head)};
        return line;
      }
    }
  }

  const analysis::PrimalEdges& primal_;
  std::vector<Strand> strands_;
  std::map<analysis::Vertex, Ends> at_;
  std::vector<int> next_, previous_;
  std::vector<bool> used_;
};

bool same_bits(const Vec3& a, const Vec3& b) {
  return std::bit_cast<std::array<std::uint64_t, 3>>(a) ==
         std::bit_cast<std::array<std::uint64_t, 3>>(b);
}

// Random phases (charges of 1 and 2, closed lines, the boundary), a region of them (lines ending
// at the region) and the κ = 10 vortex (lines of several charges meeting at junctions): the lines
// are the rule's, in its order, with the same points to the bit.
TEST_P(Lines, JoinedAsTheHeaderStatesOnEveryKindOfEnd) {
  const Grid g = grid();
  const analysis::PrimalEdges primal(g);
  const double cut = 0.25 * Potential{}.at(g, 0);
  std::map<LineEnd, int> ends;
  int closed = 0;
  for (const auto& [psi, region] :
       {std::pair{verify::random_phases(g, 7), kEveryRing},
        std::pair{verify::random_phases(g, 8), cut},
        std::pair{sample(g, HarmonicVortex{10, 1.0}, 0.0, 1.0), kEveryRing}}) {
    const std::vector<PiercedEdge> edges = pierced(g, psi, region);
    const std::vector<VortexLine> found = analysis::vortex_lines(primal, edges);
    const std::vector<VortexLine> expected = JoinedByTheRule(primal, edges).lines();
    ASSERT_EQ(found.size(), expected.size());
    for (std::size_t k = 0; k < found.size(); ++k) {
      const VortexLine &a = found[k], &b = expected[k];
      EXPECT_EQ(a.charge, b.charge) << "line " << k;
      EXPECT_EQ(a.closed, b.closed) << "line " << k;
      EXPECT_EQ(a.ends, b.ends) << "line " << k;
      ASSERT_TRUE(std::ranges::equal(a.points, b.points, same_bits)) << "line " << k;
      closed += b.closed ? 1 : 0;
      if (!b.closed) {
        ++ends[b.ends[0]];
        ++ends[b.ends[1]];
      }
    }
  }
  EXPECT_GT(closed, 0);
  EXPECT_GT(ends[LineEnd::boundary], 0);
  EXPECT_GT(ends[LineEnd::region], 0);
  RecordProperty("junction_ends", std::to_string(ends[LineEnd::junction]));
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Lines, verify::every_stencil(), verify::lattice_name);

} // namespace
} // namespace decgpe
