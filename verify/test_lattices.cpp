// Exact geometric invariants of the six cell complexes and the consistency of their DEC Laplacian.

#include "lattices/bloch.hpp"
#include "lattices/cell_complex.hpp"
#include "verify/lattice_params.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace decgpe::lattices {
namespace {

class Lattice : public ::testing::TestWithParam<std::string_view> {
protected:
  const CellComplex& complex() const { return cell_complex(GetParam()); }
  static Vec3 shift(const CellComplex& c, const std::array<int, 3>& o) {
    return {o[0] * c.box.x, o[1] * c.box.y, o[2] * c.box.z};
  }
};

TEST_P(Lattice, CellsPerStructureMatchThePaper) {
  const std::map<std::string_view, int> expected = {{"cubic", 1}, {"fcc", 12},  {"bcc", 12},
                                                    {"a15", 46},  {"c15", 136}, {"z", 80}};
  EXPECT_EQ(complex().cells_per_structure(), expected.at(GetParam()));
}

TEST_P(Lattice, CellVolumesSumToStructureVolume) {
  double total = 0.0;
  for (const Cell& cell : complex().cells) {
    EXPECT_GT(cell.volume, 0.0);
    total += cell.volume;
  }
  EXPECT_NEAR(total, complex().structure_volume(), 1e-13);
}

TEST_P(Lattice, EveryFaceIsSharedByExactlyTwoCellsWithEqualArea) {
  const CellComplex& c = complex();
  for (std::size_t i = 0; i < c.cells.size(); ++i) {
    for (const Face& f : c.cells[i].faces) {
      int partners = 0;
      for (const Face& g : c.cells[f.neighbour].faces) {
        if (g.neighbour == static_cast<int>(i) && g.offset[0] == -f.offset[0] &&
            g.offset[1] == -f.offset[1] && g.offset[2] == -f.offset[2]) {
          ++partners;
          EXPECT_NEAR(g.area, f.area, 1e-13);
          EXPECT_NEAR(g.dual_length, f.dual_length, 1e-13);
        }
      }
      EXPECT_EQ(partners, 1) << "cell " << i;
    }
  }
}

TEST_P(Lattice, DualEdgesAreParallelToFaceNormals) {
  const CellComplex& c = complex();
  for (const Cell& cell : c.cells) {
    for (const Face& f : cell.faces) {
      const Vec3 d = c.cells[f.neighbour].circumcentre + shift(c, f.offset) - cell.circumcentre;
      const Vec3 across = d - f.normal * dot(d, f.normal);
      EXPECT_LT(norm(across), 1e-12);
      EXPECT_NEAR(norm(d), f.dual_length, 1e-12);
    }
  }
}

TEST_P(Lattice, FaceAreaVectorsCloseEveryCell) {
  for (const Cell& cell : complex().cells) {
    Vec3 sum;
    for (const Face& f : cell.faces) {
      sum += f.normal * f.area;
    }
    EXPECT_LT(norm(sum), 1e-13);
  }
}

TEST_P(Lattice, EveryWeightIsPositive) {
  for (const Cell& cell : complex().cells) {
    for (const Face& f : cell.faces) {
      EXPECT_GT(f.dual_length, 0.0);
      EXPECT_GT(f.weight, 0.0);
      EXPECT_NEAR(f.weight, f.area / (f.dual_length * cell.volume), 1e-12 * f.weight);
    }
  }
}

// (L u)_i = (1/|B_i|) Σ_F |F|/|E*| (u_i − u_j): zero on constants by construction and on linear
// functions because the dual edges are parallel to the normals and Σ_F |F| n_F = 0. Constants are
// checked on a field that is not identically one value per structure so that a wrong neighbour
// index would show.
TEST_P(Lattice, LaplacianIsExactlyZeroOnConstantsAndLinearFunctions) {
  const CellComplex& c = complex();
  const Vec3 gradients[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.3, -1.7, 2.9}};
  for (const Vec3& g : gradients) {
    for (const Cell& cell : c.cells) {
      double lu_const = 0.0, lu_linear = 0.0;
      for (const Face& f : cell.faces) {
        const Vec3 cj = c.cells[f.neighbour].circumcentre + shift(c, f.offset);
        lu_const += f.weight * (7.0 - 7.0);
        lu_linear += f.weight * (dot(g, cell.circumcentre) + 5.0 - (dot(g, cj) + 5.0));
      }
      EXPECT_EQ(lu_const, 0.0);
      EXPECT_LT(std::abs(lu_linear), 1e-11 * norm(g) * static_cast<double>(cell.faces.size()) *
                                         cell.faces.front().weight);
    }
  }
}

// λ₀(k)/|k|² − 1 = O((|k| h)²): the RMS over 200 directions at |k| h_eff = 0.1 and 0.05 gives the
// order.
TEST_P(Lattice, BlochDispersionConvergesAtSecondOrder) {
  const CellComplex& c = complex();
  const double h = effective_spacing(c);
  double coarse = 0.0, fine = 0.0;
  for (const Vec3& dir : sphere_directions(200)) {
    const double k1 = 0.1 / h, k2 = 0.05 / h;
    const double e1 = lowest_bloch_eigenvalue(c, dir * k1) / (k1 * k1) - 1.0;
    const double e2 = lowest_bloch_eigenvalue(c, dir * k2) / (k2 * k2) - 1.0;
    coarse += e1 * e1;
    fine += e2 * e2;
  }
  const double order = std::log2(std::sqrt(coarse / fine));
  RecordProperty("dispersion_order", std::to_string(order));
  EXPECT_GE(order, 1.9);
  EXPECT_LT(std::sqrt(coarse / 200), 1e-3); // and the error itself is small at |k| h_eff = 0.1
}

TEST(LatticeNames, UnknownNameIsAnError) {
  EXPECT_THROW(make_crystal("hcp"), std::invalid_argument);
}

TEST(LatticeValues, CubicIsTheUnitCubeWithUnitWeights) {
  const CellComplex& c = cell_complex("cubic");
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_NEAR(c.cells[0].volume, 1.0, 1e-15);
  ASSERT_EQ(c.cells[0].faces.size(), 6u);
  for (const Face& f : c.cells[0].faces) {
    EXPECT_NEAR(f.weight, 1.0, 1e-14);
    EXPECT_EQ(f.neighbour, 0);
  }
}

TEST(LatticeValues, BccHasOneWeightForEveryFace) {
  // Congruent tetrahedra with faces 2:√3 isosceles triangles (paper §2): every face carries the
  // same weight.
  const CellComplex& c = cell_complex("bcc");
  const double w0 = c.cells[0].faces[0].weight;
  for (const Cell& cell : c.cells) {
    EXPECT_NEAR(cell.volume, 1.0 / 12.0, 1e-15);
    for (const Face& f : cell.faces) {
      EXPECT_NEAR(f.weight, w0, 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllSix, Lattice, verify::all_lattices(), verify::lattice_name);

} // namespace
} // namespace decgpe::lattices
