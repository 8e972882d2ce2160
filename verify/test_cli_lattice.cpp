// The `decgpe lattice` command as a user runs it: valid JSON with every field, and a one-line error
// otherwise.

#include "lattices/cell_complex.hpp"
#include "lattices/crystal.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/lattice_params.hpp"
#include "verify/run_command.hpp"

#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace decgpe {
namespace {

class LatticeCommand : public ::testing::TestWithParam<std::string_view> {};

TEST_P(LatticeCommand, PrintsValidJsonWithAllFields) {
  const verify::CommandResult r =
      verify::run_decgpe("lattice " + std::string(GetParam()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j.at("lattice"), GetParam());
  EXPECT_EQ(j.at("box").size(), 3u);
  EXPECT_GT(j.at("points").get<int>(), 0);
  const int ms = j.at("cells_per_structure").get<int>();
  ASSERT_EQ(j.at("cells").size(), static_cast<std::size_t>(ms));
  for (const auto& cell : j.at("cells")) {
    EXPECT_EQ(cell.at("circumcentre").size(), 3u);
    EXPECT_GT(cell.at("volume").get<double>(), 0.0);
    ASSERT_FALSE(cell.at("faces").empty());
    for (const auto& f : cell.at("faces")) {
      EXPECT_GT(f.at("area").get<double>(), 0.0);
      EXPECT_GT(f.at("dual_edge_length").get<double>(), 0.0);
      EXPECT_LT(f.at("neighbour").get<int>(), ms);
      EXPECT_EQ(f.at("offset").size(), 3u);
      EXPECT_GT(f.at("weight").get<double>(), 0.0);
    }
  }
}

// The cells' vertices (for drawing the true cells): each cell's vertices lie on its circumsphere,
// and a tetrahedron's volume is the |B| the solver uses.
TEST_P(LatticeCommand, VerticesLieOnTheCircumsphereAndSpanTheVolume) {
  const verify::CommandResult r =
      verify::run_decgpe("lattice " + std::string(GetParam()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output); // outlives the loop over its cells
  for (const auto& cell : j.at("cells")) {
    const auto c = cell.at("circumcentre").get<std::array<double, 3>>();
    const auto vertices = cell.at("vertices").get<std::vector<std::array<double, 3>>>();
    ASSERT_GE(vertices.size(), 4u);
    const auto distance = [&c](const std::array<double, 3>& v) {
      return std::hypot(v[0] - c[0], v[1] - c[1], v[2] - c[2]);
    };
    for (const auto& v : vertices) {
      EXPECT_NEAR(distance(v), distance(vertices[0]), 1e-9 * distance(vertices[0]));
    }
    if (vertices.size() == 4) {
      std::array<std::array<double, 3>, 3> e{};
      for (int k = 0; k < 3; ++k) {
        for (int d = 0; d < 3; ++d) {
          e[k][d] = vertices[k + 1][d] - vertices[0][d];
        }
      }
      const double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
      EXPECT_NEAR(std::abs(det) / 6.0, cell.at("volume").get<double>(), 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllSix, LatticeCommand, verify::all_lattices(), verify::lattice_name);

TEST(LatticeCommandErrors, UnknownLatticeIsOneLineAndNonZeroExit) {
  const verify::CommandResult r = verify::run_decgpe("lattice hcp");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown lattice 'hcp'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "expected exactly one line: " << r.output;
}

// `decgpe list`: the registries as scripts and reports read them, in the registries' order.
std::string joined(auto names, std::string_view separator) {
  std::string text;
  for (const std::string_view name : names) {
    text += (text.empty() ? "" : std::string(separator)) + std::string(name);
  }
  return text + "\n";
}

TEST(ListCommand, PrintsEachRegistryInItsOrder) {
  EXPECT_EQ(verify::run_decgpe("list lattices").output, joined(lattices::lattice_names(), "\n"));
  EXPECT_EQ(verify::run_decgpe("list crystals --csv").output,
            joined(lattices::crystal_names(), ","));
  std::vector<std::string_view> schemes;
  for (const SchemeEntry& s : scheme_registry()) {
    schemes.push_back(s.name);
  }
  EXPECT_EQ(verify::run_decgpe("list schemes").output, joined(schemes, "\n"));
  EXPECT_NE(verify::run_decgpe("list backends").output.find("reference\n"), std::string::npos);
}

TEST(ListCommand, JsonCarriesEachEntrysFacts) {
  const verify::CommandResult lattices = verify::run_decgpe("list lattices --json");
  ASSERT_EQ(lattices.exit_code, 0) << lattices.output;
  for (const auto& entry : nlohmann::json::parse(lattices.output)) {
    const auto name = entry.at("name").get<std::string>();
    EXPECT_EQ(entry.at("crystal").get<bool>(), name != "cubic4");
    EXPECT_EQ(entry.at("cells_per_structure").get<int>(),
              lattices::cell_complex(name).cells_per_structure());
  }
  const verify::CommandResult schemes = verify::run_decgpe("list schemes --json");
  ASSERT_EQ(schemes.exit_code, 0) << schemes.output;
  for (const auto& entry : nlohmann::json::parse(schemes.output)) {
    const SchemeEntry& s = find_scheme(entry.at("name").get<std::string>());
    EXPECT_EQ(entry.at("limit_factor").is_null(), s.limit_factor == kUnconditionallyStable);
    EXPECT_EQ(entry.at("order").get<int>(), s.order);
  }
}

// What the reports take from the registry instead of keeping per lattice (reports/roofline.py's
// faces per cell, reports/physics.py's shortest dual edge): the values they held, in structure
// edges; FCC's (8·4 + 4·8) / 12 faces.
TEST(ListCommand, LatticesCarryTheirFacesPerCellAndShortestDualEdge) {
  const verify::CommandResult r = verify::run_decgpe("list crystals --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::map<std::string, std::pair<double, double>> expected{
      {"cubic", {6.0, 1.0}},     {"fcc", {16.0 / 3.0, 0.4330127}}, {"bcc", {4.0, 0.3535534}},
      {"a15", {4.0, 0.1443376}}, {"c15", {4.0, 0.1275776}},        {"z", {4.0, 0.1863390}}};
  const auto entries = nlohmann::json::parse(r.output);
  ASSERT_EQ(entries.size(), expected.size());
  for (const auto& entry : entries) {
    const auto& [faces, shortest] = expected.at(entry.at("name").get<std::string>());
    EXPECT_DOUBLE_EQ(entry.at("faces_per_cell").get<double>(), faces) << entry;
    EXPECT_NEAR(entry.at("shortest_dual_edge").get<double>(), shortest, 1e-7) << entry;
  }
}

TEST(ListCommand, UnknownRegistryIsOneLineAndNonZeroExit) {
  const verify::CommandResult r = verify::run_decgpe("list meshes");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("meshes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "expected exactly one line: " << r.output;
}

} // namespace
} // namespace decgpe
