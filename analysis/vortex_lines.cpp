#include "analysis/vortex_lines.hpp"

#include <algorithm>
#include <numeric>

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

std::pair<Vertex, Vertex> PrimalEdges::ends(std::int64_t edge) const {
  const std::int64_t per = rings_.edges_per_structure();
  const lattices::EdgeRing& e = rings_.edges[static_cast<std::size_t>(edge % per)];
  const std::int64_t instance = edge / per, sx = grid_.size[0], sy = grid_.size[1];
  const std::int64_t row = instance / sx; // three divisions an edge: the join's hot loop
  const std::array<std::int64_t, 3> at{instance - row * sx, row % sy, row / sy};
  return {{at, e.from},
          {{at[0] + e.to.offset[0], at[1] + e.to.offset[1], at[2] + e.to.offset[2]}, e.to.index}};
}

bool PrimalEdges::interior(const Vertex& v) const {
  // Two instances from every face, every edge at v and every cell of its ring (offsets −1, 0 or 1
  // each) lie in the domain: the loop below would find nothing.
  bool deep = true;
  for (int a = 0; a < 3; ++a) {
    deep = deep && v.instance[a] >= 2 && v.instance[a] < std::int64_t{grid_.size[a]} - 2;
  }
  if (deep) {
    return true;
  }
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

std::int64_t PrimalEdges::key(const Vertex& v) const {
  const std::int64_t nx = grid_.size[0] + 2, ny = grid_.size[1] + 2; // offsets are −1, 0 or 1
  const std::int64_t instance =
      (v.instance[2] + 1) * ny * nx + (v.instance[1] + 1) * nx + (v.instance[0] + 1);
  return instance * static_cast<std::int64_t>(rings_.vertices.size()) + v.index;
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
  std::vector<char> head_balanced, tail_balanced;
};

/// A strand's end at a vertex.
struct End {
  std::int64_t vertex; ///< PrimalEdges::key
  std::uint32_t order; ///< tail << 31 | strand: the tail leaves the vertex, the head comes in
  std::int32_t charge; ///< the strand's (in what would be padding: the pairing reads it in order)
  bool tail() const { return (order >> 31) != 0; }
  int strand() const { return static_cast<int>(order & 0x7fffffffU); }
};

/// The strands' ends grouped by vertex, heads before tails, each in strand order (edge-id order):
/// listed in that order, then sorted by vertex stably, a radix sort of 11 bits a pass (keys are
/// non-negative; a comparison sort of Vertex took 3-5 times as long).
std::vector<End> sorted_ends(const PrimalEdges& primal, const std::vector<Strand>& strands) {
  std::vector<End> ends(2 * strands.size()), other(ends.size());
  std::int64_t largest = 0;
  for (std::uint32_t s = 0; s < strands.size(); ++s) {
    ends[s] = {primal.key(strands[s].head), s, strands[s].charge};
    ends[strands.size() + s] = {primal.key(strands[s].tail), s | 0x80000000U, strands[s].charge};
    largest = std::max({largest, ends[s].vertex, ends[strands.size() + s].vertex});
  }
  constexpr int kBits = 11;
  constexpr std::int64_t kDigit = (1 << kBits) - 1;
  for (int shift = 0; (largest >> shift) > 0; shift += kBits) {
    std::vector<std::size_t> start((1 << kBits) + 1);
    for (const End& e : ends) {
      ++start[static_cast<std::size_t>((e.vertex >> shift) & kDigit) + 1];
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    for (const End& e : ends) {
      other[start[static_cast<std::size_t>((e.vertex >> shift) & kDigit)]++] = e;
    }
    ends.swap(other);
  }
  return ends;
}

Pairing pair_at_vertices(const PrimalEdges& primal, const std::vector<Strand>& strands) {
  const std::vector<End> ends = sorted_ends(primal, strands);
  Pairing p{std::vector<int>(strands.size(), -1), std::vector<char>(strands.size()),
            std::vector<char>(strands.size())};
  std::vector<char> taken(strands.size()); // by the strand leaving along it
  for (std::size_t at = 0; at < ends.size();) {
    std::size_t outs = at, last = at;
    int net = 0;
    for (; last < ends.size() && ends[last].vertex == ends[at].vertex; ++last) {
      const int charge = ends[last].charge;
      outs += ends[last].tail() ? 0 : 1;
      net += ends[last].tail() ? -charge : charge;
    }
    for (std::size_t k = at; k < last; ++k) {
      (ends[k].tail() ? p.tail_balanced : p.head_balanced)[ends[k].strand()] = net == 0;
    }
    for (std::size_t in = at; in < outs; ++in) {
      const int s = ends[in].strand();
      for (std::size_t out = outs; out < last; ++out) {
        const int o = ends[out].strand();
        if (!taken[o] && ends[out].charge == ends[in].charge) {
          taken[o] = 1;
          p.next[s] = o;
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
                 const Pairing& pairing, int first, std::vector<char>& used) {
  const std::vector<int>& next = pairing.next;
  VortexLine line;
  line.charge = strands[first].charge;
  std::size_t strands_in_line = 1; // the points' room first: most lines are short, growing is slow
  for (int s = next[first]; s >= 0 && s != first; s = next[s]) {
    ++strands_in_line;
  }
  line.points.reserve(strands_in_line + 1);
  line.points.push_back(primal.position(strands[first].tail));
  int s = first;
  while (true) {
    used[s] = 1;
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
  strands.reserve(pierced.size());
  for (const PiercedEdge& p : pierced) {
    const auto [a, b] = primal.ends(p.edge);
    strands.push_back(p.flux > 0 ? Strand{a, b, p.flux} : Strand{b, a, -p.flux});
  }
  const Pairing pairing = pair_at_vertices(primal, strands);
  std::vector<char> continued(strands.size()), used(strands.size());
  for (const int n : pairing.next) {
    if (n >= 0) {
      continued[static_cast<std::size_t>(n)] = 1;
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
