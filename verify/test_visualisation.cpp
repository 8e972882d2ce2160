// What a visualisation tool gets from `decgpe run`: /viz (points, the cells as tetrahedra and
// polyhedra, real fields with units) and the XDMF sidecar naming them; snapshots named so that name
// order is step order. ParaView itself opens the sidecar in the viz-labelled ctest (verify/viz/).

#include "hdf5/hdf5_file.hpp"
#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "verify/run_fixture.hpp"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <regex>
#include <sstream>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

// 110 steps with a snapshot every 10: string order of unpadded names would put 100 before 20.
const std::string kCase = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 10.0
[time]
dt_fraction = 0.5
steps = 110
diagnostics_every = 10
snapshot_every = 10
[initial]
kappa = 1
)";

class Visualisation : public verify::RunFixture {
protected:
  std::string sidecar_text() const {
    std::ostringstream text;
    text << std::ifstream(sidecar()).rdbuf();
    return text.str();
  }
};

std::vector<std::string> matches(const std::string& text, const std::string& pattern) {
  std::vector<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    found.push_back((*it)[1]);
  }
  return found;
}

std::string text_attribute_of(const fs::path& file, const std::string& object) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen_by_name(f, object.c_str(), "units", H5P_DEFAULT, H5P_DEFAULT);
  const hid_t type = H5Aget_type(a);
  std::string value(H5Tget_size(type), '\0');
  H5Aread(a, type, value.data());
  H5Tclose(type);
  H5Aclose(a);
  H5Fclose(f);
  return value.substr(0, value.find('\0'));
}

std::vector<float> floats(const fs::path& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<float> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return values;
}

std::vector<std::int64_t> integers(const fs::path& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<std::int64_t> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return values;
}

TEST_F(Visualisation, SnapshotNamesSortInStepOrder) {
  ASSERT_EQ(run(kCase, "--backend reference").exit_code, 0);
  const io::InputFile f(out());
  const std::vector<std::string> names = f.members("/snapshots"); // HDF5's name order
  ASSERT_EQ(names.size(), 12u);
  for (std::size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(std::stol(names[k]), static_cast<long>(10 * k)) << names[k];
  }
}

TEST_F(Visualisation, SidecarNamesEveryFrameInTimeOrderWithDatasetsOfTheRightSize) {
  ASSERT_EQ(run(kCase, "--backend reference").exit_code, 0);
  const std::string xmf = sidecar_text();
  const io::InputFile f(out());
  const std::int64_t cells = f.integer_attribute("cells");
  const std::vector<std::string> times = matches(xmf, "<Time Value=\"([^\"]+)\"");
  ASSERT_EQ(times.size(), 12u); // the final state is the last snapshot's time: not repeated
  for (std::size_t k = 1; k < times.size(); ++k) {
    EXPECT_GT(std::stod(times[k]), std::stod(times[k - 1]));
  }
  EXPECT_EQ(matches(xmf, "NumberOfElements=\"(\\d+)\"").front(), std::to_string(cells));
  const std::vector<std::string> datasets = matches(xmf, "result\\.h5:([^<]+)</DataItem>");
  ASSERT_EQ(datasets.size(), 12u * 6); // cells, vertices and four fields per frame
  const std::vector<std::string> dims = matches(xmf, "Dimensions=\"([^\"]+)\"");
  for (std::size_t k = 0; k < datasets.size(); ++k) {
    const std::string& dataset = datasets[k];
    const std::size_t size =
        dataset == "/viz/cells" ? integers(out(), dataset).size() : floats(out(), dataset).size();
    const std::size_t expected = dataset == "/viz/cells"      ? std::stoul(dims[k])
                                 : dataset == "/viz/vertices" ? 3 * std::stoul(dims[k])
                                                              : static_cast<std::size_t>(cells);
    EXPECT_EQ(size, expected) << dataset;
  }
  EXPECT_EQ(matches(xmf, "Attribute Name=\"([^\"]+)\"").front(), "density [a_ho^-3]");
}

/// The vertices the sidecar's cells index, as /viz/vertices holds them: x, y, z a vertex.
struct Vertices {
  const std::vector<float>& xyz;
  lattices::Vec3 operator()(std::int64_t id) const {
    EXPECT_LT(3 * id + 2, static_cast<std::int64_t>(xyz.size()));
    const auto k = static_cast<std::size_t>(3 * id);
    return lattices::Vec3{xyz[k], xyz[k + 1], xyz[k + 2]};
  }
};

/// The volume of the tetrahedron whose four vertices v points at.
double tetrahedron_volume(const Vertices& vertex, const std::int64_t* v) {
  return dot(vertex(v[1]) - vertex(v[0]),
             cross(vertex(v[2]) - vertex(v[0]), vertex(v[3]) - vertex(v[0]))) /
         6;
}

/// The volume of the polyhedron of `faces` faces listed from stream[at] (each its vertex count,
/// then its vertices), by the divergence theorem over each face's fan of triangles; `at` moves past
/// them.
double polyhedron_volume(const Vertices& vertex, const std::vector<std::int64_t>& stream,
                         std::size_t& at, std::int64_t faces) {
  const auto triangle = [&](std::int64_t a, std::int64_t b, std::int64_t c) {
    return dot(vertex(a), cross(vertex(b), vertex(c))) / 6;
  };
  double volume = 0;
  for (std::int64_t f = 0; f < faces; ++f) {
    const std::int64_t n = stream[at];
    for (std::int64_t k = 2; k < n; ++k) {
      volume += triangle(stream[at + 1], stream[at + k], stream[at + k + 1]);
    }
    at += static_cast<std::size_t>(n) + 1;
  }
  return volume;
}

// The cells ParaView draws are the grid's: in memory order, each of the volume the solver gives
// it (the divergence theorem over its faces, so their vertices must run anticlockwise seen from
// outside), their vertices shared: on the cubic grid the (S + 1)³ corners. BCC's cells are
// tetrahedra, cubic's and FCC's (octahedra besides tetrahedra) polyhedra.
TEST_F(Visualisation, CellsAreTheGridsWithTheirVolumesAndSharedVertices) {
  for (const std::string lattice : {"cubic", "fcc", "bcc", "a15"}) {
    const std::string text = verify::replace(
        verify::replace(kCase, "\"bcc\"", "\"" + lattice + "\""), "steps = 110", "steps = 10");
    ASSERT_EQ(run(text, "--backend reference --force").exit_code, 0) << lattice;
    const Grid grid = setup::prepare_run(setup::parse_case(text, "case.toml")).problem.grid;
    const std::vector<std::int64_t> stream = integers(out(), "/viz/cells");
    const std::vector<float> xyz = floats(out(), "/viz/vertices");
    const Vertices vertex{xyz};
    std::size_t at = 0;
    for (std::int64_t i = 0; i < grid.cells(); ++i) {
      ASSERT_LT(at, stream.size()) << lattice;
      double volume = 0;
      if (stream[at] == 6) { // a tetrahedron: 6 a b c d
        volume = tetrahedron_volume(vertex, &stream[at + 1]);
        at += 5;
      } else { // a polyhedron: 16 faces, then per face its count and vertices
        ASSERT_EQ(stream[at], 16) << lattice << " cell " << i;
        const std::int64_t faces = stream[at + 1];
        at += 2;
        volume = polyhedron_volume(vertex, stream, at, faces);
      }
      const double expected = grid.volume[static_cast<std::size_t>(i % grid.ms)];
      ASSERT_NEAR(volume, expected, 1e-4 * expected) << lattice << " cell " << i;
      const lattices::Vec3 centre = grid.position(i);
      EXPECT_LT(lattices::norm(vertex(stream[at - 1]) - centre), 2 * grid.h) << lattice;
    }
    EXPECT_EQ(at, stream.size()) << lattice;
    if (lattice == "cubic") {
      const auto corners =
          static_cast<std::size_t>((grid.size[0] + 1) * (grid.size[1] + 1) * (grid.size[2] + 1));
      EXPECT_EQ(xyz.size(), 3 * corners);
    }
  }
}

TEST_F(Visualisation, FieldsArePsiInSinglePrecisionWithUnitsAndPointsAreTheCentres) {
  ASSERT_EQ(run(kCase, "--backend reference").exit_code, 0);
  const io::InputFile f(out());
  const std::vector<Complex> psi = f.complexes("/state/current");
  const std::vector<float> density = floats(out(), "/viz/state/density");
  const std::vector<float> phase = floats(out(), "/viz/state/phase");
  const std::vector<float> re = floats(out(), "/viz/state/re_psi");
  const std::vector<float> im = floats(out(), "/viz/state/im_psi");
  ASSERT_EQ(density.size(), psi.size());
  for (std::size_t i = 0; i < psi.size(); ++i) {
    EXPECT_EQ(density[i], static_cast<float>(norm2(psi[i])));
    EXPECT_EQ(phase[i], static_cast<float>(std::atan2(psi[i].im, psi[i].re)));
    EXPECT_EQ(re[i], static_cast<float>(psi[i].re));
    EXPECT_EQ(im[i], static_cast<float>(psi[i].im));
  }
  const Grid grid = setup::prepare_run(setup::parse_case(kCase, "case.toml")).problem.grid;
  const std::vector<float> points = floats(out(), "/viz/points");
  ASSERT_EQ(points.size(), 3 * psi.size());
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const lattices::Vec3 p = grid.position(i);
    EXPECT_EQ(points[3 * i], static_cast<float>(p.x));
    EXPECT_EQ(points[3 * i + 1], static_cast<float>(p.y));
    EXPECT_EQ(points[3 * i + 2], static_cast<float>(p.z));
  }
  EXPECT_EQ(text_attribute_of(out(), "/viz/points"), "a_ho");
  EXPECT_EQ(text_attribute_of(out(), "/viz/state/density"), "a_ho^-3");
  EXPECT_EQ(text_attribute_of(out(), "/viz/state/phase"), "rad");
  EXPECT_EQ(text_attribute_of(out(), "/viz/state/re_psi"), "a_ho^-3/2");
}

TEST_F(Visualisation, NoStateAndNoSnapshotsWriteNeitherFieldsNorSidecar) {
  const std::string no_snapshots = verify::replace(kCase, "snapshot_every = 10", "");
  ASSERT_EQ(run(no_snapshots, "--backend reference --no-state").exit_code, 0);
  EXPECT_FALSE(io::InputFile(out()).has("/viz"));
  EXPECT_FALSE(fs::exists(sidecar()));
}

// The sidecar belongs to its results file: a stale one (its results moved away) is replaced, and
// it is left alone whenever the results file is refused.
TEST_F(Visualisation, TheSidecarIsReplacedWithItsResultsAndOnlyThen) {
  fs::create_directories(out().parent_path());
  std::ofstream(sidecar()) << "stale";
  ASSERT_EQ(run(kCase, "--backend reference").exit_code, 0);
  EXPECT_NE(sidecar_text().find("<Xdmf"), std::string::npos);
  std::ofstream(sidecar()) << "edited";
  expect_one_line_error(run(kCase, "--backend reference"), "result.h5");
  EXPECT_EQ(sidecar_text(), "edited");
}

} // namespace
} // namespace decgpe
