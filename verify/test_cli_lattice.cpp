// The `decgpe lattice` command as a user runs it: valid JSON with every field, and a one-line error
// otherwise.

#include "lattices/crystal.hpp"
#include "verify/lattice_params.hpp"
#include "verify/run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

INSTANTIATE_TEST_SUITE_P(AllSix, LatticeCommand, verify::all_lattices(), verify::lattice_name);

TEST(LatticeCommandErrors, UnknownLatticeIsOneLineAndNonZeroExit) {
  const verify::CommandResult r = verify::run_decgpe("lattice hcp");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown lattice 'hcp'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "expected exactly one line: " << r.output;
}

} // namespace
} // namespace decgpe
