#include "io/visualisation.hpp"

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

void data_item(std::ostream& out, const std::string& dims, const std::string& h5,
               const std::string& dataset) {
  out << "        <DataItem Dimensions=\"" << dims
      << "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">" << h5 << ":" << dataset
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

std::string xdmf_text(const std::string& h5, std::int64_t cells, const std::vector<Frame>& frames) {
  std::ostringstream out;
  out.precision(17);
  out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
      << "    <Grid Name=\"decgpe\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string n = std::to_string(cells);
  for (const Frame& frame : frames) {
    out << "     <Grid Name=\"" << frame.group << "\" GridType=\"Uniform\">\n"
        << "      <Time Value=\"" << frame.t << "\"/>\n"
        << "      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
        << "\" NodesPerElement=\"1\"/>\n"
        << "      <Geometry GeometryType=\"XYZ\">\n";
    data_item(out, n + " 3", h5, "/viz/points");
    out << "      </Geometry>\n";
    for (const Field& field : kFields) {
      out << "      <Attribute Name=\"" << field.name
          << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
          << "        <Information Name=\"units\" Value=\"" << field.units << "\"/>\n";
      data_item(out, n, h5, frame.group + "/" + field.name);
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

fs::path xdmf_path(const fs::path& results) {
  return fs::path(results).replace_extension(".xmf");
}

void write_xdmf(const fs::path& results) {
  const InputFile in(results);
  if (!in.has("/viz/points")) {
    return;
  }
  const std::int64_t cells = in.integer_attribute("cells");
  // The file's name alone, so that the two can be moved together.
  replace_file(xdmf_path(results),
               xdmf_text(escaped(results.filename().string()), cells, frames_of(in)));
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
