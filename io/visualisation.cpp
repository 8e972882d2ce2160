#include "io/visualisation.hpp"

#include "lattices/cell_complex.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <utility>
#include <vector>

namespace decgpe::io {

namespace {

namespace fs = std::filesystem;

struct Field {
  const char* name;
  const char* units;
  float (*value)(Complex psi);
};

// Units of the dimensionless GPE (docs/cases.md, "The equation and its units").
constexpr Field kFields[] = {
    {"density", "a_ho^-3", [](Complex p) { return static_cast<float>(norm2(p)); }},
    {"phase", "rad", [](Complex p) { return static_cast<float>(std::atan2(p.im, p.re)); }},
    {"re_psi", "a_ho^-3/2", [](Complex p) { return static_cast<float>(p.re); }},
    {"im_psi", "a_ho^-3/2", [](Complex p) { return static_cast<float>(p.im); }},
};

/// One time of the sidecar's collection: the /viz group that holds its fields.
struct Frame {
  std::string group;
  double t;
};

std::vector<Frame> frames_of(const InputFile& in) {
  std::vector<Frame> frames;
  for (const std::string& name : in.members("/viz/snapshots")) { // zero-padded: in step order
    const std::string group = "/viz/snapshots/" + name;
    frames.push_back({group, in.number_attribute("t", group)});
  }
  // The final state, unless the last snapshot already is that time.
  if (in.has("/viz/state")) {
    const double t = in.number_attribute("t", "/viz/state");
    if (frames.empty() || frames.back().t != t) {
      frames.push_back({"/viz/state", t});
    }
  }
  return frames;
}

void data_item(std::ostream& out, const std::string& dims, const char* type, int precision,
               const std::string& h5, const std::string& dataset) {
  out << "        <DataItem Dimensions=\"" << dims << "\" NumberType=\"" << type
      << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << h5 << ":" << dataset
      << "</DataItem>\n";
}

/// `text` as XML attribute or element content.
std::string escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += ch;
    }
  }
  return out;
}

/// The fields' names as ParaView shows them (its colour bars, its array lists): with their units.
std::string shown_name(const Field& field) {
  return std::string(field.name) + " [" + field.units + "]";
}

std::string xdmf_text(const std::string& h5, std::int64_t cells, std::uint64_t topology,
                      std::uint64_t vertices, const std::vector<Frame>& frames) {
  std::ostringstream out;
  out.precision(17);
  out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n"
      << "    <Grid Name=\"decgpe\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string n = std::to_string(cells);
  for (const Frame& frame : frames) {
    out << "     <Grid Name=\"" << frame.group << "\" GridType=\"Uniform\">\n"
        << "      <Time Value=\"" << frame.t << "\"/>\n"
        << "      <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << n << "\">\n";
    data_item(out, std::to_string(topology), "Int", 4, h5, "/viz/cells");
    out << "      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n";
    data_item(out, std::to_string(vertices) + " 3", "Float", 4, h5, "/viz/vertices");
    out << "      </Geometry>\n";
    for (const Field& field : kFields) {
      out << "      <Attribute Name=\"" << shown_name(field)
          << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n";
      data_item(out, n, "Float", 4, h5, frame.group + "/" + field.name);
      out << "      </Attribute>\n";
    }
    out << "     </Grid>\n";
  }
  out << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return out.str();
}

/// One sample's lines as XDMF's Mixed topology (type 2, a polyline: its node count, its nodes)
/// and cell data, inline; its points are the results' /vortex_lines/<step>/points.
void lines_grid(std::ostream& out, const std::string& h5, const InputFile& in,
                const std::string& group) {
  const std::vector<std::int64_t> offsets = in.integers(group + "/offsets");
  const std::vector<std::int64_t> closed = in.integers(group + "/closed");
  const std::vector<std::int64_t> charges = in.integers(group + "/charges");
  std::ostringstream topology, charge, closure;
  std::size_t entries = 0;
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    const std::int64_t nodes = offsets[k + 1] - offsets[k] + closed[k];
    topology << " 2 " << nodes;
    for (std::int64_t p = offsets[k]; p < offsets[k + 1]; ++p) {
      topology << ' ' << p;
    }
    topology << (closed[k] != 0 ? " " + std::to_string(offsets[k]) : "");
    entries += 2 + static_cast<std::size_t>(nodes);
    charge << ' ' << charges[k];
    closure << ' ' << closed[k];
  }
  const std::string lines = std::to_string(charges.size());
  out << "     <Grid Name=\"" << group << "\" GridType=\"Uniform\">\n"
      << "      <Time Value=\"" << in.number_attribute("t", group) << "\"/>\n"
      << "      <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << lines << "\">\n"
      << "        <DataItem Dimensions=\"" << entries
      << "\" NumberType=\"Int\" Precision=\"8\" Format=\"XML\">" << topology.str()
      << "</DataItem>\n      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n"
      << "        <DataItem Dimensions=\"" << offsets.back()
      << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5 << ":" << group
      << "/points</DataItem>\n      </Geometry>\n";
  for (const auto& [name, values] :
       {std::pair{"charge", charge.str()}, {"closed", closure.str()}}) {
    out << "      <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "        <DataItem Dimensions=\"" << lines
        << "\" NumberType=\"Int\" Precision=\"8\" Format=\"XML\">" << values
        << "</DataItem>\n      </Attribute>\n";
  }
  out << "     </Grid>\n";
}

/// The lines' sidecar, or "" when no sample has a line.
std::string lines_xdmf_text(const std::string& h5, const InputFile& in) {
  std::ostringstream out;
  out.precision(17);
  bool any = false;
  for (const std::string& name : in.members("/vortex_lines")) { // zero-padded: in step order
    const std::string group = "/vortex_lines/" + name;
    if (name.find_first_not_of("0123456789") == std::string::npos &&
        in.size(group + "/charges") > 0) {
      lines_grid(out, h5, in, group);
      any = true;
    }
  }
  if (!any) {
    return "";
  }
  return "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
         "    <Grid Name=\"vortex_lines\" GridType=\"Collection\" CollectionType=\"Temporal\">\n" +
         out.str() + "    </Grid>\n  </Domain>\n</Xdmf>\n";
}

/// Where a vertex of a structure's cell is: the index of its point among the structure's points
/// (those of its cells' vertices, each once, wrapped into [0, box)) and the structure it lies in,
/// relative to the cell's.
struct VertexPlace {
  int point;
  std::array<int, 3> shift;
};

/// A cell of the structure as XDMF's Mixed topology writes it, vertices numbered by their position
/// in the cell: a tetrahedron (type 6, four vertices, positively oriented), any other cell a
/// polyhedron (type 16: its face count, then per face its vertex count and vertices, anticlockwise
/// seen from outside). The cells are convex with their vertices on the circumsphere, so a face is
/// the vertices that lie furthest along its normal, ordered by angle around their centroid.
std::vector<int> cell_stream(const lattices::Cell& cell) {
  const std::vector<lattices::Vec3>& v = cell.vertices;
  const double tolerance = lattices::kGeometryTolerance * std::max(1.0, cell.circumradius) * 1e3;
  if (v.size() == 4) {
    const bool positive = dot(cross(v[1] - v[0], v[2] - v[0]), v[3] - v[0]) > 0;
    return positive ? std::vector<int>{6, 0, 1, 2, 3} : std::vector<int>{6, 0, 2, 1, 3};
  }
  std::vector<int> stream{16, static_cast<int>(cell.faces.size())};
  for (const lattices::Face& face : cell.faces) {
    double furthest = -1e300;
    for (const lattices::Vec3& p : v) {
      furthest = std::max(furthest, dot(p, face.normal));
    }
    std::vector<int> on_face;
    lattices::Vec3 centroid{};
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (dot(v[k], face.normal) > furthest - tolerance) {
        on_face.push_back(static_cast<int>(k));
        centroid = centroid + v[k];
      }
    }
    centroid = centroid * (1.0 / static_cast<double>(on_face.size()));
    const lattices::Vec3 u = v[on_face.front()] - centroid;
    const lattices::Vec3 w = cross(face.normal, u);
    const auto angle = [&](int k) {
      const lattices::Vec3 d = v[k] - centroid;
      return std::atan2(dot(d, w), dot(d, u));
    };
    std::ranges::sort(on_face, [&](int a, int b) { return angle(a) < angle(b); });
    stream.push_back(static_cast<int>(on_face.size()));
    stream.insert(stream.end(), on_face.begin(), on_face.end());
  }
  return stream;
}

/// The places of every cell's vertices in the structure, and how many distinct points there are.
std::vector<std::vector<VertexPlace>> vertex_places(const lattices::CellComplex& complex,
                                                    int& points) {
  const double tolerance = lattices::kGeometryTolerance * 1e3;
  std::vector<lattices::Vec3> wrapped;
  std::vector<std::vector<VertexPlace>> places;
  for (const lattices::Cell& cell : complex.cells) {
    std::vector<VertexPlace>& mine = places.emplace_back();
    for (const lattices::Vec3& p : cell.vertices) {
      VertexPlace place{};
      for (int a = 0; a < 3; ++a) {
        place.shift[a] = static_cast<int>(std::floor((p[a] + tolerance) / complex.box[a]));
      }
      const lattices::Vec3 r =
          p - lattices::scale(lattices::Vec3{static_cast<double>(place.shift[0]),
                                             static_cast<double>(place.shift[1]),
                                             static_cast<double>(place.shift[2])},
                              complex.box);
      const auto same = std::ranges::find_if(
          wrapped, [&](const lattices::Vec3& q) { return lattices::norm(q - r) < tolerance; });
      place.point = static_cast<int>(same - wrapped.begin());
      if (same == wrapped.end()) {
        wrapped.push_back(r);
      }
      mine.push_back(place);
    }
  }
  points = static_cast<int>(wrapped.size());
  return places;
}

/// `text` onto `path` through a temporary in the same folder, so that no reader sees half of it.
void replace_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp." + std::to_string(getpid());
  const auto fail = [&](const std::string& reason) {
    std::error_code ec;
    fs::remove(temporary, ec);
    throw std::runtime_error("cannot write output '" + path.string() + "': " + reason);
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fail(std::strerror(errno));
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    fail(ec.message());
  }
}

/// The vertices of the whole grid, each numbered on first use. A vertex is a point of the
/// structure instance (sx, sy, sz) + shift; instances range over [low, S + high] per axis, the
/// shifts' range.
class VertexNumbers {
public:
  VertexNumbers(const Grid& whole, const std::vector<std::vector<VertexPlace>>& places, int points)
      : points_(points) {
    std::array<int, 3> high{0, 0, 0};
    for (const std::vector<VertexPlace>& cell : places) {
      for (const VertexPlace& place : cell) {
        for (int a = 0; a < 3; ++a) {
          low_[a] = std::min(low_[a], place.shift[a]);
          high[a] = std::max(high[a], place.shift[a]);
        }
      }
    }
    for (int a = 0; a < 3; ++a) {
      span_[a] = std::int64_t{whole.size[a]} + high[a] - low_[a];
    }
    index_.assign(static_cast<std::size_t>(span_[0] * span_[1] * span_[2] * points), -1);
  }

  /// The number of `place` as seen from instance (sx, sy, sz); −1 until one is given.
  std::int32_t& operator()(std::int64_t sx, std::int64_t sy, std::int64_t sz,
                           const VertexPlace& place) {
    const std::int64_t ix = sx + place.shift[0] - low_[0];
    const std::int64_t iy = sy + place.shift[1] - low_[1];
    const std::int64_t iz = sz + place.shift[2] - low_[2];
    return index_[static_cast<std::size_t>(((iz * span_[1] + iy) * span_[0] + ix) * points_ +
                                           place.point)];
  }

private:
  int points_;
  std::array<int, 3> low_{0, 0, 0};
  std::array<std::int64_t, 3> span_{};
  std::vector<std::int32_t> index_;
};

/// A cell's stream (cell_stream) onto `topology`, its vertices named by their numbers `ids`: the
/// stream names them by their position in the cell; counts stay as they are.
void append_cell(std::vector<std::int32_t>& topology, const std::vector<int>& stream,
                 const std::vector<std::int32_t>& ids) {
  topology.push_back(stream[0]);
  if (stream[0] == 6) {
    for (std::size_t e = 1; e < stream.size(); ++e) {
      topology.push_back(ids[static_cast<std::size_t>(stream[e])]);
    }
    return;
  }
  topology.push_back(stream[1]);
  for (std::size_t e = 2; e < stream.size(); e += static_cast<std::size_t>(stream[e]) + 1) {
    topology.push_back(stream[e]);
    for (int n = 1; n <= stream[e]; ++n) {
      topology.push_back(ids[static_cast<std::size_t>(stream[e + n])]);
    }
  }
}

} // namespace

void write_viz_points(DomainOutput& out) {
  const Grid& g = out.grid();
  std::vector<float> points;
  points.reserve(static_cast<std::size_t>(g.owned_cells()) * 3);
  for (std::int64_t i = g.owned_begin * g.slice_cells(); i < g.owned_end * g.slice_cells(); ++i) {
    const lattices::Vec3 p = g.position(i);
    points.insert(points.end(),
                  {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
  }
  out.write("/viz/points", points, 3);
  out.attribute_of("/viz/points", "units", std::string("a_ho"));
}

void write_viz_fields(DomainOutput& out, const std::string& name, double t,
                      std::span<const Complex> owned) {
  const std::string group = "/viz/" + name;
  std::vector<float> values(owned.size());
  for (const Field& field : kFields) {
    for (std::size_t i = 0; i < owned.size(); ++i) {
      values[i] = field.value(owned[i]);
    }
    const std::string path = group + "/" + field.name;
    out.write(path, values, 1);
    out.attribute_of(path, "units", std::string(field.units));
  }
  out.attribute_of(group, "t", t);
}

void write_viz_cells(ResultsFile& file, const Grid& whole) {
  const lattices::CellComplex& complex = lattices::cell_complex(whole.lattice);
  int points = 0;
  const std::vector<std::vector<VertexPlace>> places = vertex_places(complex, points);
  std::vector<std::vector<int>> streams;
  for (const lattices::Cell& cell : complex.cells) {
    streams.push_back(cell_stream(cell));
  }
  VertexNumbers numbers(whole, places, points);
  std::vector<float> vertices;
  std::vector<std::int32_t> topology;
  std::vector<std::int32_t> ids;
  for (std::int64_t sz = 0; sz < whole.size[2]; ++sz) {
    for (std::int64_t sy = 0; sy < whole.size[1]; ++sy) {
      for (std::int64_t sx = 0; sx < whole.size[0]; ++sx) {
        const lattices::Vec3 instance{static_cast<double>(sx) * whole.box.x,
                                      static_cast<double>(sy) * whole.box.y,
                                      static_cast<double>(sz) * whole.box.z};
        for (std::size_t l = 0; l < places.size(); ++l) {
          ids.clear();
          for (std::size_t k = 0; k < places[l].size(); ++k) {
            std::int32_t& id = numbers(sx, sy, sz, places[l][k]);
            if (id < 0) {
              id = static_cast<std::int32_t>(vertices.size() / 3);
              const lattices::Vec3 p =
                  whole.origin + complex.cells[l].vertices[k] * whole.h + instance;
              vertices.insert(vertices.end(), {static_cast<float>(p.x), static_cast<float>(p.y),
                                               static_cast<float>(p.z)});
            }
            ids.push_back(id);
          }
          append_cell(topology, streams[l], ids);
        }
      }
    }
  }
  file.write("/viz/vertices", std::span<const float>(vertices), {vertices.size() / 3, 3});
  file.attribute_of("/viz/vertices", "units", std::string("a_ho"));
  file.write("/viz/cells", std::span<const std::int32_t>(topology));
  file.attribute_of("/viz/cells", "vertices", static_cast<double>(vertices.size() / 3));
}

fs::path xdmf_path(const fs::path& results) {
  return fs::path(results).replace_extension(".xmf");
}

void write_xdmf(const fs::path& results) {
  const InputFile in(results);
  if (!in.has("/viz/cells")) {
    return;
  }
  const std::int64_t cells = in.integer_attribute("cells");
  // The file's name alone, so that the two can be moved together.
  replace_file(xdmf_path(results),
               xdmf_text(escaped(results.filename().string()), cells, in.size("/viz/cells"),
                         static_cast<std::uint64_t>(in.number_attribute("vertices", "/viz/cells")),
                         frames_of(in)));
}

fs::path lines_xdmf_path(const fs::path& results) {
  return fs::path(results).replace_extension(".lines.xmf");
}

void write_lines_xdmf(const fs::path& results) {
  const InputFile in(results);
  const std::string text = lines_xdmf_text(escaped(results.filename().string()), in);
  if (!text.empty()) {
    replace_file(lines_xdmf_path(results), text);
    return;
  }
  std::error_code ec; // an earlier run's sidecar would show lines these results do not hold
  fs::remove(lines_xdmf_path(results), ec);
}

} // namespace decgpe::io
