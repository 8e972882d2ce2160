#include "solvers/face_colouring.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace decgpe {

namespace {

/// A face of the two-instance-periodic quotient graph: cell (parity, l) and its row-relative face
/// f.
struct QuotientFace {
  int vertex; ///< parity · ms + l
  int face;   ///< row-relative index in row l
  int other;  ///< the neighbour's vertex
  int back;   ///< the neighbour's row-relative face index leading back
};

int offset_parity(const StencilEntry& s) {
  return (s.dx & 1) | (s.dy & 1) << 1 | (s.dz & 1) << 2;
}

std::vector<QuotientFace> quotient_faces(const Grid& g) {
  std::vector<QuotientFace> faces;
  for (int parity = 0; parity < kParities; ++parity) {
    for (int l = 0; l < g.ms; ++l) {
      for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
        const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
        const int vertex = parity * g.ms + l;
        const int other = (parity ^ offset_parity(s)) * g.ms + s.neighbour;
        const int face = e - g.row_begin[l], back = reverse_face(g, l, e);
        if (vertex < other || (vertex == other && face < back)) { // each face once
          faces.push_back({vertex, face, other, back});
        }
      }
    }
  }
  return faces;
}

/// A colouring of the faces under construction: each face's colour, and at each vertex the face of
/// each colour.
class PartialColouring {
public:
  PartialColouring(const std::vector<QuotientFace>& faces, int vertices, int colours,
                   std::vector<int>& colour)
      : faces_(faces), colours_(colours), colour_(colour),
        at_(static_cast<std::size_t>(vertices * colours), -1) {
    colour_.assign(faces.size(), -1);
  }

  void set(int face, int c) {
    const QuotientFace& f = faces_[static_cast<std::size_t>(face)];
    colour_[static_cast<std::size_t>(face)] = c;
    slot(f.vertex, c) = face;
    slot(f.other, c) = face;
  }

  /// The first colour free at both u and v, or −1.
  int free_at_both(int u, int v) {
    for (int c = 0; c < colours_; ++c) {
      if (slot(u, c) < 0 && slot(v, c) < 0) {
        return c;
      }
    }
    return -1;
  }

  /// A colour α free at u, freed at v by flipping an α/β Kempe chain from v, or −1 when no chain
  /// frees one.
  int free_by_flipping(int u, int v) {
    for (int alpha = 0; alpha < colours_; ++alpha) {
      for (int beta = 0; beta < colours_; ++beta) {
        if (slot(u, alpha) >= 0 || slot(v, beta) >= 0 || alpha == beta) {
          continue;
        }
        // The chain from v: its α face, then β, α, … ; flipping it frees α at v unless it ends at
        // u.
        std::vector<int> chain;
        if (chain_end(v, alpha, beta, chain) == u) {
          continue;
        }
        flip(chain, alpha, beta);
        return alpha;
      }
    }
    return -1;
  }

private:
  /// at_[v · colours + c]: the face of colour c at vertex v, or −1.
  int& slot(int v, int c) { return at_[static_cast<std::size_t>(v * colours_ + c)]; }

  /// Follows the α/β chain from `from` into `chain`; returns the vertex where it ends.
  int chain_end(int from, int alpha, int beta, std::vector<int>& chain) {
    int at_vertex = from, want = alpha;
    while (slot(at_vertex, want) >= 0) {
      const int next = slot(at_vertex, want);
      chain.push_back(next);
      const QuotientFace& g = faces_[static_cast<std::size_t>(next)];
      at_vertex = g.vertex == at_vertex ? g.other : g.vertex;
      want = want == alpha ? beta : alpha;
    }
    return at_vertex;
  }

  void flip(const std::vector<int>& chain, int alpha, int beta) {
    for (int face : chain) { // clear, then set with swapped colours
      const QuotientFace& g = faces_[static_cast<std::size_t>(face)];
      slot(g.vertex, colour_[static_cast<std::size_t>(face)]) = -1;
      slot(g.other, colour_[static_cast<std::size_t>(face)]) = -1;
    }
    for (int face : chain) {
      set(face, colour_[static_cast<std::size_t>(face)] == alpha ? beta : alpha);
    }
  }

  const std::vector<QuotientFace>& faces_;
  int colours_;
  std::vector<int>& colour_;
  std::vector<int> at_;
};

/// Colours the faces with `colours` colours, or returns false. Each face in `order` takes a colour
/// free at both its cells; when none is, an α/β Kempe chain from one cell is flipped to free one
/// (the step of König's and Vizing's proofs), so it reaches the degree or one more on these
/// lattices.
bool kempe_colouring(const std::vector<QuotientFace>& faces, const std::vector<int>& order,
                     int vertices, int colours, std::vector<int>& colour) {
  PartialColouring partial(faces, vertices, colours, colour);
  for (int index : order) {
    const QuotientFace& f = faces[static_cast<std::size_t>(index)];
    int done = partial.free_at_both(f.vertex, f.other);
    if (done < 0) {
      done = partial.free_by_flipping(f.vertex, f.other);
    }
    if (done < 0) {
      return false;
    }
    partial.set(index, done);
  }
  return true;
}

} // namespace

int reverse_face(const Grid& g, int l, int e) {
  const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
  for (int r = g.row_begin[s.neighbour]; r < g.row_begin[s.neighbour + 1]; ++r) {
    const StencilEntry& back = g.stencil[static_cast<std::size_t>(r)];
    if (back.neighbour == l && back.dx == -s.dx && back.dy == -s.dy && back.dz == -s.dz) {
      return r - g.row_begin[s.neighbour];
    }
  }
  throw std::invalid_argument("lattice '" + g.lattice + "': face " + std::to_string(e) +
                              " of cell " + std::to_string(l) + " has no reverse");
}

FaceColouring colour_faces(const Grid& g) {
  const std::vector<QuotientFace> faces = quotient_faces(g);
  const int vertices = kParities * g.ms;
  int degree = 0;
  for (int l = 0; l < g.ms; ++l) {
    degree = std::max(degree, g.row_begin[l + 1] - g.row_begin[l]);
  }
  std::vector<int> order(faces.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle(20221);
  std::vector<int> best;
  int best_colours = degree;
  // The fewest colours, from the degree up: each colour is two sweeps of the state per step.
  while (best.empty()) {
    for (int attempt = 0; attempt < 256 && best.empty(); ++attempt) {
      if (!kempe_colouring(faces, order, vertices, best_colours, best)) {
        best.clear();
        std::shuffle(order.begin(), order.end(), shuffle);
      }
    }
    best_colours += best.empty() ? 1 : 0;
  }
  FaceColouring result;
  result.colours = best_colours;
  result.ms = g.ms;
  result.face.assign(static_cast<std::size_t>(best_colours * vertices), -1);
  for (std::size_t k = 0; k < faces.size(); ++k) {
    const QuotientFace& f = faces[k];
    result.face[static_cast<std::size_t>(best[k] * vertices + f.vertex)] =
        static_cast<std::int8_t>(f.face);
    result.face[static_cast<std::size_t>(best[k] * vertices + f.other)] =
        static_cast<std::int8_t>(f.back);
  }
  return result;
}

const FaceColouring& face_colouring(const Grid& grid) {
  static std::mutex mutex;
  static std::map<std::string, FaceColouring, std::less<>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(grid.lattice);
  if (it == cache.end()) {
    it = cache.emplace(grid.lattice, colour_faces(grid)).first;
  }
  return it->second;
}

const std::vector<Complex>& FaceRotationCache::at(const Grid& grid, double tau) {
  for (const auto& [t, table] : tables_) {
    if (t == tau) {
      return table;
    }
  }
  return tables_.emplace_back(tau, face_rotations(grid, tau)).second;
}

std::vector<Complex> face_rotations(const Grid& g, double tau) {
  // e^{−iθ} − 1 with its real part as −2 sin²(θ/2): no cancellation for small θ.
  const auto rotation_minus_one = [](double theta) {
    const double half = std::sin(0.5 * theta);
    return Complex{-2.0 * half * half, -std::sin(theta)};
  };
  std::vector<Complex> k(2 * g.stencil.size());
  for (int l = 0; l < g.ms; ++l) {
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
      const double w_i = s.weight;
      const double w_j =
          g.stencil[static_cast<std::size_t>(g.row_begin[s.neighbour] + reverse_face(g, l, e))]
              .weight;
      k[2 * static_cast<std::size_t>(e)] =
          (w_i / (w_i + w_j)) * rotation_minus_one(0.5 * tau * (w_i + w_j));
      k[2 * static_cast<std::size_t>(e) + 1] = rotation_minus_one(0.5 * tau * w_i);
    }
  }
  return k;
}

} // namespace decgpe
