#include "analysis/vortex_lines.hpp"

#include <algorithm>
#include <utility>

namespace decgpe::analysis {

PrimalEdges::PrimalEdges(const Grid& whole)
    : grid_(whole), rings_(lattices::edge_rings(whole.lattice)), table_(make_ring_table(whole)),
      incident_(rings_.vertices.size()) {
  for (int e = 0; e < rings_.edges_per_structure(); ++e) {
    const lattices::EdgeRing& edge = rings_.edges[static_cast<std::size_t>(e)];
    incident_[static_cast<std::size_t>(edge.from)].push_back({e, {0, 0, 0}});
    incident_[static_cast<std::size_t>(edge.to.index)].push_back(
        {e, {-edge.to.offset[0], -edge.to.offset[1], -edge.to.offset[2]}});
  }
}

std::array<std::int64_t, 3> PrimalEdges::instance_of(std::int64_t edge) const {
  const std::int64_t instance = edge / rings_.edges_per_structure();
  const std::int64_t sx = grid_.size[0], sy = grid_.size[1];
  return {instance % sx, (instance / sx) % sy, instance / (sx * sy)};
}

Vertex PrimalEdges::from(std::int64_t edge) const {
  const auto e = static_cast<std::size_t>(edge % rings_.edges_per_structure());
  return {instance_of(edge), rings_.edges[e].from};
}

Vertex PrimalEdges::to(std::int64_t edge) const {
  const lattices::EdgeRing& e =
      rings_.edges[static_cast<std::size_t>(edge % rings_.edges_per_structure())];
  std::array<std::int64_t, 3> instance = instance_of(edge);
  for (int a = 0; a < 3; ++a) {
    instance[a] += e.to.offset[a];
  }
  return {instance, e.to.index};
}

bool PrimalEdges::interior(const Vertex& v) const {
  for (const Incident& at : incident_[static_cast<std::size_t>(v.index)]) {
    const std::int64_t sx = v.instance[0] + at.back[0], sy = v.instance[1] + at.back[1],
                       sz = v.instance[2] + at.back[2];
    const bool in_domain =
        sx >= 0 && sy >= 0 && sx < grid_.size[0] && sy < grid_.size[1] && grid_.z_inside(sz);
    if (!in_domain || !ring_inside(grid_, table_, at.edge, sx, sy, sz)) {
      return false;
    }
  }
  return true;
}

lattices::Vec3 PrimalEdges::position(const Vertex& v) const {
  const lattices::Vec3& box = grid_.box;
  return grid_.origin + rings_.vertices[static_cast<std::size_t>(v.index)] * grid_.h +
         lattices::Vec3{static_cast<double>(v.instance[0]) * box.x,
                        static_cast<double>(v.instance[1]) * box.y,
                        static_cast<double>(v.instance[2]) * box.z};
}

namespace {

/// A pierced edge oriented along its positive flux.
struct Strand {
  Vertex tail, head;
  int charge;
};

/// How the strands continue: next[s] the strand that continues s at its head (−1: none), by the
/// rule of the header; and whether the charges in and out balance at each strand's head and tail.
struct Pairing {
  std::vector<int> next;
  std::vector<bool> head_balanced, tail_balanced;
};

/// The strands' ends sorted by vertex (heads before tails, each in strand order, i.e. edge-id
/// order) group each vertex's ins and outs (a map of vertices: 15-25% slower over a random field's
/// 870k pierced edges; a turbulent state on a GPU-sized grid has millions a sample).
Pairing pair_at_vertices(const std::vector<Strand>& strands) {
  struct End {
    Vertex vertex;
    bool tail; // false: the strand comes in here (its head); true: it leaves (its tail)
    int strand;
    auto operator<=>(const End&) const = default;
  };
  std::vector<End> ends;
  ends.reserve(2 * strands.size());
  for (int s = 0; s < static_cast<int>(strands.size()); ++s) {
    ends.push_back({strands[s].head, false, s});
    ends.push_back({strands[s].tail, true, s});
  }
  std::sort(ends.begin(), ends.end());
  Pairing p{std::vector<int>(strands.size(), -1), std::vector<bool>(strands.size()),
            std::vector<bool>(strands.size())};
  std::vector<int>& next = p.next;
  for (std::size_t at = 0; at < ends.size();) {
    std::size_t outs = at, last = at;
    int net = 0;
    while (last < ends.size() && ends[last].vertex == ends[at].vertex) {
      outs += ends[last].tail ? 0 : 1;
      net +=
          ends[last].tail ? -strands[ends[last].strand].charge : strands[ends[last].strand].charge;
      ++last;
    }
    for (std::size_t k = at; k < last; ++k) {
      (ends[k].tail ? p.tail_balanced : p.head_balanced)[ends[k].strand] = net == 0;
    }
    for (std::size_t in = at; in < outs; ++in) {
      const int s = ends[in].strand;
      for (std::size_t out = outs; out < last; ++out) {
        if (ends[out].strand >= 0 && strands[ends[out].strand].charge == strands[s].charge) {
          next[s] = std::exchange(ends[out].strand, -1);
          break;
        }
      }
    }
    at = last;
  }
  return p;
}

/// The line of the strands from `first` along next, marking them used.
VortexLine trace(const PrimalEdges& primal, const std::vector<Strand>& strands,
                 const Pairing& pairing, int first, std::vector<bool>& used) {
  const std::vector<int>& next = pairing.next;
  VortexLine line;
  line.charge = strands[first].charge;
  line.points.push_back(primal.position(strands[first].tail));
  int s = first;
  while (true) {
    used[s] = true;
    const int n = next[s];
    if (n == first) {
      line.closed = true;
      return line;
    }
    line.points.push_back(primal.position(strands[s].head));
    if (n < 0) {
      const auto end = [&](const Vertex& v, bool balanced) {
        if (!primal.interior(v)) {
          return LineEnd::boundary;
        }
        return balanced ? LineEnd::junction : LineEnd::region;
      };
      line.ends = {end(strands[first].tail, pairing.tail_balanced[first]),
                   end(strands[s].head, pairing.head_balanced[s])};
      return line;
    }
    s = n;
  }
}

} // namespace

std::vector<VortexLine> vortex_lines(const PrimalEdges& primal,
                                     std::span<const PiercedEdge> pierced) {
  std::vector<Strand> strands;
  for (const PiercedEdge& p : pierced) {
    const Vertex a = primal.from(p.edge), b = primal.to(p.edge);
    strands.push_back(p.flux > 0 ? Strand{a, b, p.flux} : Strand{b, a, -p.flux});
  }
  const Pairing pairing = pair_at_vertices(strands);
  std::vector<bool> continued(strands.size(), false), used(strands.size(), false);
  for (const int n : pairing.next) {
    if (n >= 0) {
      continued[static_cast<std::size_t>(n)] = true;
    }
  }
  std::vector<VortexLine> lines;
  for (int s = 0; s < static_cast<int>(strands.size()); ++s) {
    if (!continued[s]) {
      lines.push_back(trace(primal, strands, pairing, s, used));
    }
  }
  for (int s = 0; s < static_cast<int>(strands.size()); ++s) {
    if (!used[s]) {
      lines.push_back(trace(primal, strands, pairing, s, used));
    }
  }
  return lines;
}

double length(const VortexLine& line) {
  double total = 0.0;
  const std::size_t n = line.points.size();
  for (std::size_t k = 0; k + 1 < n; ++k) {
    total += lattices::norm(line.points[k + 1] - line.points[k]);
  }
  if (line.closed && n > 1) {
    total += lattices::norm(line.points.front() - line.points[n - 1]);
  }
  return total;
}

} // namespace decgpe::analysis
