#pragma once
// Vortex lines from the fluxes of the primal edges (solvers/vortex_flux.hpp). At every primal
// vertex whose edges are all measured the fluxes sum to zero, so the pierced edges, each oriented
// along its positive flux, form chains on the primal complex: the lines, closed or ending on the
// boundary of the measured region.
//
// A line has one charge. Where several lines meet at a vertex, each incoming edge (in edge-id
// order) continues along the first unused outgoing edge of the same charge (in edge-id order); an
// edge left without a partner ends its line there. Inside the domain that happens where charges
// change (a charge-κ line splitting into lines of smaller charge): a junction; or, in a region of
// the domain (solvers/vortex_flux.hpp), where the vertex's measured fluxes do not sum to zero
// because some of its flux runs through rings that leave the region: the line ends at the region.

#include "lattices/edge_rings.hpp"
#include "solvers/grid.hpp"
#include "solvers/vortex_flux.hpp"

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace decgpe::analysis {

/// A primal vertex of the domain: its index in a structure and the instance it belongs to (one
/// beyond the domain's instances on its upper faces).
struct Vertex {
  std::array<std::int64_t, 3> instance{};
  int index = -1;
  auto operator<=>(const Vertex&) const = default;
};

/// How an open line ends: where the domain's measured region ends; at a vertex inside it where
/// the charges in and out differ but balance (a junction); or at one whose measured fluxes do not
/// balance, the rest running through rings outside the region measured.
enum class LineEnd { boundary, junction, region };

struct VortexLine {
  std::vector<lattices::Vec3> points; ///< primal vertices, physical units; a closed line's first
                                      ///< point is not repeated at its end
  int charge = 0;                     ///< > 0, the phase winding counterclockwise about the
                                      ///< direction from one point to the next
  bool closed = false;
  std::array<LineEnd, 2> ends{}; ///< an open line's first and last point
};

/// The primal edges and vertices of a whole domain, decoded from edge ids.
class PrimalEdges {
public:
  explicit PrimalEdges(const Grid& whole);

  /// The edge's vertices, from() and to(), from one decoding of its id.
  std::pair<Vertex, Vertex> ends(std::int64_t edge) const;
  Vertex from(std::int64_t edge) const { return ends(edge).first; }
  Vertex to(std::int64_t edge) const { return ends(edge).second; }
  /// Whether every edge at v is measured (its instance in the domain, its ring inside it): the
  /// vertices where the fluxes of the edges must sum to zero.
  bool interior(const Vertex& v) const;
  lattices::Vec3 position(const Vertex& v) const;
  /// A number of its own for each vertex from() and to() can give (the domain's and those one
  /// instance beyond it), so that vertices are grouped by sorting numbers.
  std::int64_t key(const Vertex& v) const;
  const Grid& grid() const { return grid_; }

private:
  /// An edge at a vertex: edge `edge` of the instance `back` from the vertex's own.
  struct Incident {
    int edge;
    std::array<int, 3> back;
  };

  Grid grid_;
  const lattices::EdgeRings& rings_;
  RingTable table_;
  std::vector<std::vector<Incident>> incident_; ///< by vertex index
};

/// The lines of `pierced` (sorted by edge id, as Backend::vortex_flux returns them): open lines
/// first, in the order of their first edge's id, then closed ones from their lowest edge id.
std::vector<VortexLine> vortex_lines(const PrimalEdges& primal,
                                     std::span<const PiercedEdge> pierced);

/// The polyline's length (a closed line's closing segment included).
double length(const VortexLine& line);

} // namespace decgpe::analysis
