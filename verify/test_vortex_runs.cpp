// The vortex lines in a run (issue 33): `[analysis] vortex_lines_every` through `decgpe run`, the
// samples, series and events in the results, a stop and resume that continues them bitwise, the
// refusal of bad values, and the events' definitions on lines made by hand.

#include "io/vortex_output.hpp"
#include "verify/restart_chain.hpp"

#include <algorithm>
#include <array>
#include <gtest/gtest.h>
#include <set>

namespace decgpe {
namespace {

using analysis::LineEvent;
using analysis::VortexLine;
using verify::replace;
namespace fs = std::filesystem;

// The default initial state with κ = 1: a straight vortex along z through the whole domain.
const std::string kStraight = R"(lattice = "bcc"
h = 0.45
domain = [6.0, 6.0, 6.0]
g = 0.0
[time]
dt = 1e-3
steps = 25
diagnostics_every = 5
[initial]
kappa = 1
[analysis]
vortex_lines_every = 10
vortex_region = "domain" # the whole line, through the Gaussian's tails to the boundary
)";

// κ = 3 with g = 10 out of equilibrium: the lines come apart and new ones appear where ψ is small,
// so the events have something to compare across the resumes.
const std::string kChanging = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 10.0
[time]
dt_fraction = 0.5
steps = 70
diagnostics_every = 10
[initial]
kappa = 3
[analysis]
vortex_lines_every = 20
)";

class VortexRuns : public verify::RestartFixture {};

// The paper's κ = 10 stationary vortex (g = 300) on a coarse BCC grid, 200 steps: beyond the
// condensate the phase winds at random, so in the whole domain the lines fill the round-off.
const std::string kKappaTen = R"(lattice = "bcc"
operations_per_time = 3e7
domain = "auto"
g = 300.0
[time]
dt_fraction = 0.9
dt_fraction_of = "eq11"
steps = 200
diagnostics_every = 50
[initial]
kind = "stationary_vortex"
kappa = 10
[analysis]
vortex_lines_every = 50
)";

/// Each sample's segments (pairs of consecutive points, a closed line's closing one included).
std::vector<std::set<std::array<double, 6>>> segments(const fs::path& results) {
  std::vector<std::set<std::array<double, 6>>> out;
  for (const io::VortexSample& s : io::read_vortex_lines(io::InputFile(results))) {
    std::set<std::array<double, 6>>& mine = out.emplace_back();
    for (const VortexLine& line : s.lines) {
      const std::size_t n = line.points.size();
      for (std::size_t k = 0; k + (line.closed ? 0 : 1) < n; ++k) {
        const lattices::Vec3 &a = line.points[k], &b = line.points[(k + 1) % n];
        mine.insert({a.x, a.y, a.z, b.x, b.y, b.z});
      }
    }
  }
  return out;
}

/// The net flux through the plane z = z0 (upwards > 0).
int flux_through(std::vector<VortexLine> lines, double z0) {
  for (VortexLine& line : lines) {
    for (lattices::Vec3& p : line.points) {
      p.z -= z0;
    }
  }
  return analysis::summarise(lines).net_flux_z0;
}

/// Each sample's number of line points.
std::vector<std::size_t> points(const std::vector<io::VortexSample>& samples) {
  std::vector<std::size_t> out;
  for (const io::VortexSample& s : samples) {
    std::size_t n = 0;
    for (const VortexLine& line : s.lines) {
      n += line.points.size();
    }
    out.push_back(n);
  }
  return out;
}

// In the default region (the condensate, V < μ) the samples stay small while the whole domain's
// fill up; the core's flux of 10 is there at t = 0; and every segment kept is one of the whole
// domain's: the lines inside the condensate are the same, cut where it ends.
TEST_F(VortexRuns, TheCondensatesRegionKeepsItsLinesAndDropsTheRoundOff) {
  ASSERT_EQ(run(kKappaTen, "--backend openmp").exit_code, 0);
  const io::InputFile f(out());
  EXPECT_EQ(f.text_attribute("vortex_region"), "condensate");
  EXPECT_GT(f.number_attribute("vortex_potential_cut"), 0.0);
  const std::vector<io::VortexSample> region = io::read_vortex_lines(f);
  const fs::path exact = out().string() + ".domain.h5";
  ASSERT_EQ(verify::run_decgpe("run " + write_case(kKappaTen).string() +
                               " --backend openmp --quiet --set analysis.vortex_region=domain "
                               "--out " +
                               exact.string())
                .exit_code,
            0);
  const std::vector<io::VortexSample> domain = io::read_vortex_lines(io::InputFile(exact));
  ASSERT_EQ(region.size(), 5U);
  ASSERT_EQ(domain.size(), region.size());
  for (const double z0 : {-0.5, 0.0, 0.5}) {
    EXPECT_EQ(flux_through(region.front().lines, z0), 10) << "z = " << z0;
  }
  const std::vector<std::set<std::array<double, 6>>> kept = segments(out()), all = segments(exact);
  const std::vector<std::size_t> kept_points = points(region), all_points = points(domain);
  for (std::size_t k = 0; k < region.size(); ++k) {
    EXPECT_TRUE(std::ranges::includes(all[k], kept[k])) << "sample " << k;
    EXPECT_LT(kept_points[k], 1200U) << "sample " << k; // 599 to 895 measured after t = 0
  }
  EXPECT_GT(all_points.back(), 2 * all_points.front()); // the round-off's lines grow ...
  EXPECT_GT(all_points.back(), 4 * kept_points.back()); // ... and the region drops them
  RecordProperty("points_at_the_end",
                 std::to_string(kept_points.back()) + " of " + std::to_string(all_points.back()));
}

/// Each sample's (step, number of lines, total charge).
std::vector<std::array<std::int64_t, 3>> tallies(const fs::path& results) {
  std::vector<std::array<std::int64_t, 3>> out;
  for (const io::VortexSample& s : io::read_vortex_lines(io::InputFile(results))) {
    std::int64_t charge = 0;
    for (const VortexLine& line : s.lines) {
      charge += line.charge;
    }
    out.push_back({s.step, static_cast<std::int64_t>(s.lines.size()), charge});
  }
  return out;
}

// The recorder joins each sample's lines on a thread of its own and files them when joined; each
// sample is still its own step's lines, in order: sampled every step, every second sample is the
// run sampled every two steps, and the lines (the κ = 10 state's round-off, whole domain) move
// between samples, so a sample filed at another step would differ. (On a CPU backend the flux
// over the domain outlasts a join, so the joins here do not overlap; on a GPU they do.)
TEST_F(VortexRuns, EverySampleIsItsOwnStepsLinesWhateverTheCadence) {
  const auto every = [](int n) {
    return replace(
        replace(replace(kKappaTen, "steps = 200", "steps = 40"), "vortex_lines_every = 50",
                "vortex_lines_every = " + std::to_string(n) + "\nvortex_region = \"domain\""),
        "diagnostics_every = 50", "diagnostics_every = 10");
  };
  ASSERT_EQ(run(every(1), "--backend openmp").exit_code, 0);
  const fs::path sparse = out().string() + ".every2.h5";
  ASSERT_EQ(verify::run_decgpe("run " + write_case(every(2)).string() +
                               " --backend openmp --quiet --out " + sparse.string())
                .exit_code,
            0);
  const auto dense_lines = segments(out()), sparse_lines = segments(sparse);
  const auto dense_tally = tallies(out()), sparse_tally = tallies(sparse);
  ASSERT_EQ(dense_lines.size(), 41U);
  ASSERT_EQ(sparse_lines.size(), 21U);
  std::size_t moved = 0;
  for (std::size_t k = 0; k < sparse_lines.size(); ++k) {
    EXPECT_EQ(dense_tally[2 * k], sparse_tally[k]) << "sample " << k;
    EXPECT_EQ(dense_lines[2 * k], sparse_lines[k]) << "step " << sparse_tally[k][0];
    moved += k > 0 && sparse_lines[k] != sparse_lines[k - 1] ? 1 : 0;
  }
  EXPECT_GT(moved, 10U);
  RecordProperty("samples_that_moved", std::to_string(moved) + " of 20");
}

TEST_F(VortexRuns, AStraightVortexIsOneOpenLineOfChargeOneAtEverySample) {
  const verify::CommandResult r = run(kStraight, "--backend openmp");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const io::InputFile f(out());
  EXPECT_EQ(f.integers("/vortex_lines/series/step"), (std::vector<std::int64_t>{0, 10, 20, 25}));
  const std::vector<io::VortexSample> samples = io::read_vortex_lines(f);
  ASSERT_EQ(samples.size(), 4U);
  for (const io::VortexSample& s : samples) {
    ASSERT_EQ(s.lines.size(), 1U) << "step " << s.step;
    const VortexLine& line = s.lines.front();
    EXPECT_EQ(line.charge, 1);
    EXPECT_FALSE(line.closed);
    EXPECT_EQ(line.ends[0], analysis::LineEnd::boundary);
    EXPECT_EQ(line.ends[1], analysis::LineEnd::boundary);
    // Along +z (the winding of x + iy), within a cell of the axis.
    EXPECT_LT(line.points.front().z, line.points.back().z);
    for (const lattices::Vec3& p : line.points) {
      EXPECT_LT(std::hypot(p.x, p.y), 0.45) << "step " << s.step;
    }
  }
  EXPECT_EQ(f.integers("/vortex_lines/series/net_flux_z0"), (std::vector<std::int64_t>(4, 1)));
  EXPECT_EQ(f.size("/vortex_lines/events/step"), 0U);
  EXPECT_TRUE(fs::exists(lines_sidecar()));
}

TEST_F(VortexRuns, TheSummaryNamesTheLines) {
  const verify::CommandResult r = verify::run_decgpe("run " + write_case(kStraight).string() +
                                                     " --backend openmp --out " + out().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::size_t last_points = points(io::read_vortex_lines(io::InputFile(out()))).back();
  EXPECT_NE(r.output.find("vortex lines at t = 0.025: 1 (largest charge 1, length 6.3, net flux "
                          "through z = 0 1, " +
                          std::to_string(last_points) + " points)\n"),
            std::string::npos)
      << r.output;
}

TEST_F(VortexRuns, WithoutTheKeyThereAreNoLinesAndAnEarlierSidecarGoes) {
  ASSERT_EQ(run(kStraight, "--backend openmp").exit_code, 0);
  ASSERT_TRUE(fs::exists(lines_sidecar()));
  const std::string off = replace(kStraight, "vortex_lines_every = 10", "vortex_lines_every = 0");
  ASSERT_EQ(run(off, "--backend openmp --force").exit_code, 0);
  EXPECT_FALSE(io::InputFile(out()).has("/vortex_lines"));
  EXPECT_FALSE(fs::exists(lines_sidecar()));
}

TEST_F(VortexRuns, BadValuesOfTheKeyAreRefusedInOneLine) {
  for (const std::string value : {"-1", "2.5", "\"ten\"", "true"}) {
    const std::string toml =
        replace(kStraight, "vortex_lines_every = 10", "vortex_lines_every = " + value);
    expect_rejected(run(toml), "analysis.vortex_lines_every");
  }
  expect_rejected(run(replace(kStraight, "vortex_lines_every", "vortex_line_every")),
                  "vortex_line_every");
}

TEST_F(VortexRuns, BadRegionsAreRefusedInOneLine) {
  expect_rejected(run(replace(kStraight, "\"domain\"", "\"everywhere\"")),
                  "analysis.vortex_region");
  for (const std::string value : {"0", "-1", "\"wide\""}) {
    expect_rejected(run(kStraight + "vortex_region_margin = " + value + "\n"),
                    "analysis.vortex_region_margin");
  }
  // A state read from a file has no μ to cut at.
  const std::string from_file =
      replace(replace(kStraight, "kappa = 1", "kind = \"file\"\nfile = \"psi.h5\""), "\"domain\"",
              "\"condensate\"");
  expect_rejected(run(from_file), "analysis.vortex_region");
}

TEST_F(VortexRuns, AResumedRunContinuesTheLinesBitwise) {
  ASSERT_EQ(run(kChanging, "--backend openmp").exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  // Stops at steps 10, 20 and 30 (one of them a sample's, the end not one): a gap or a repeat
  // would show.
  run_in_parts(kChanging, "--backend openmp", {"", "", "", ""});
  expect_same_run(whole, out()); // with /vortex_lines
  const io::InputFile a(whole);
  EXPECT_GT(a.size("/vortex_lines/events/step"), 0U) << "the case should have events to compare";
  EXPECT_GT(a.members("/vortex_lines").size(), 2U);
}

/// A line through `points` with `charge`.
VortexLine line(std::vector<lattices::Vec3> points, int charge, bool closed = false) {
  VortexLine l;
  l.points = std::move(points);
  l.charge = charge;
  l.closed = closed;
  return l;
}

const VortexLine kAxis2 = line({{0, 0, -1}, {0, 0, 1}}, 2);
const VortexLine kLeft = line({{-0.5, 0, -1}, {-0.5, 0, 1}}, 1);
const VortexLine kRight = line({{0.5, 0, -1}, {0.5, 0, 1}}, 1);
const VortexLine kRing = line({{1, 0, 0.5}, {0, 1, 0.5}, {-1, 0, 0.5}}, 1, true);

TEST(VortexEvents, TheNetFluxCountsSignedCrossingsOfTheMidplane) {
  const std::vector<VortexLine> lines = {kAxis2, kRing, line({{1, 1, 1}, {1, 1, -1}}, 1)};
  EXPECT_EQ(analysis::summarise(lines).net_flux_z0, 2 + 0 - 1);
  EXPECT_EQ(analysis::summarise(lines).largest_charge, 2);
  EXPECT_DOUBLE_EQ(analysis::summarise(std::vector<VortexLine>{kAxis2}).total_length, 2.0);
}

TEST(VortexEvents, ACharge2LineComingApartIsASeparationOtherChangesReconnections) {
  const std::vector<VortexLine> one = {kAxis2}, two = {kLeft, kRight};
  EXPECT_EQ(analysis::event_between(one, one), LineEvent::none);
  EXPECT_EQ(analysis::event_between(one, two), LineEvent::separation);
  EXPECT_EQ(analysis::event_between(two, one), LineEvent::reconnection);
  EXPECT_EQ(analysis::event_between(two, std::vector<VortexLine>{kLeft}),
            LineEvent::reconnection); // a line gone: the flux changed
  EXPECT_EQ(analysis::event_between(two, std::vector<VortexLine>{kLeft, kRight, kRing}),
            LineEvent::reconnection);
  const std::vector<VortexLine> moved = {line({{3, 0, -1}, {3, 0, 1}}, 1), kRight};
  EXPECT_EQ(analysis::event_between(two, moved), LineEvent::none) << "moving is no event";
  // Apart but the lines leave through the side: the flux through z = 0 is not kept.
  const std::vector<VortexLine> leaving = {line({{0, 0, -1}, {0, 3, -1}}, 1), kRight};
  EXPECT_EQ(analysis::event_between(one, leaving), LineEvent::reconnection);
}

TEST(VortexEvents, EventsAreBetweenConsecutiveSamples) {
  const std::vector<io::VortexSample> samples = {
      {0, 0.0, {kAxis2}}, {5, 0.5, {kAxis2}}, {10, 1.0, {kLeft, kRight}}, {15, 1.5, {kLeft}}};
  const std::vector<io::VortexEvent> events = io::vortex_events(samples);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].step, 10);
  EXPECT_EQ(events[0].after_step, 5);
  EXPECT_EQ(events[0].t, 1.0);
  EXPECT_EQ(events[0].kind, LineEvent::separation);
  EXPECT_EQ(events[1].step, 15);
  EXPECT_EQ(events[1].kind, LineEvent::reconnection);
}

} // namespace
} // namespace decgpe
