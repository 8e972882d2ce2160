// The leapfrog's temporal blocking: k steps in one pass over memory. A block owns a tile of
// tile_x × tile_y structure instances and walks a chunk of z-slices; it keeps the intermediate
// levels of the slices it is at in shared memory, so DRAM sees ψⁿ⁻¹ and ψⁿ read once and the last
// two levels written once: 64 B per k DOF-updates instead of 48 B per one.
//
// Levels and slices. Level 0 is ψⁿ, level −1 ψⁿ⁻¹, level j + 1 = level j − 1 − 2iΔt M(level j)
// level j. At position p of the walk the block has level 0 of slice p and computes level j of slice
// p − j for j = 1…k, in that order, each from level j − 1 on slices p − j ± 1 (the stencil) and
// level j − 2 on p − j (the leapfrog's older level): three slices of each level kept, a ring.
// Level j is computed on the tile grown by k − j instances on each side (a face reaches one
// instance over), so each tile recomputes its neighbours' rim instead of waiting for them: no
// block depends on another, and the outputs go to two other vectors (the inputs' rims are still
// read by the neighbours).
//
// Loads. Level 0 and ψⁿ⁻¹ come in with cp.async one position ahead (the copy engine's zero fill
// gives the Dirichlet zeros beyond the domain); levels past 0 are 0 there too, so the face sum
// reads every neighbour from shared memory without a test. Each cell's arithmetic is the sweep's
// (add_face over the faces in table order, apply_m, step_along): k steps here are bitwise k single
// steps.
//
// Instructions. With DRAM traffic cut, the step is bound by issue (the sweep already runs at 67% of
// the issue slots): a face costs one table entry whose offset already names its slice in the ring
// (fill_position_faces, once a position), and the trap's x² + y² of a column is kept a cell
// (fill_planes, once a launch), which is also where the domain ends.

#include "solvers/cuda/blocked_tile.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

#include <string>
#include <type_traits>
#include <utility>

namespace decgpe::cuda {

namespace {

constexpr int kLevelZeroSlots = 4; // slices p − 3 … p, and p + 1 in flight
constexpr int kOlderSlots = 2;     // ψⁿ⁻¹ of slice p − 1, and p in flight
constexpr int kLevelSlots = 3;     // slices s − 1 … s + 1 of a level past 0

/// The ring's slots: level 0 has kLevelZeroSlots, ψⁿ⁻¹ kOlderSlots, each level 1 … K − 1
/// kLevelSlots; `newest[m]` is the slot of level m's slice p − m at position p, ψⁿ⁻¹'s of slice p.
template <int K> struct Slots {
  int newest[K];
  int older;

  /// At the walk's first position p_first, slices counted from it: slice p_first − m of level m
  /// in slot (2K − m) mod R.
  __device__ Slots() : older(0) {
#pragma unroll
    for (int m = 0; m < K; ++m) {
      newest[m] = (2 * K - m) % (m == 0 ? kLevelZeroSlots : kLevelSlots);
    }
  }
  __device__ void rotate() {
#pragma unroll
    for (int m = 0; m < K; ++m) {
      const int slots = m == 0 ? kLevelZeroSlots : kLevelSlots;
      newest[m] = newest[m] + 1 == slots ? 0 : newest[m] + 1;
    }
    older ^= 1;
  }
  /// The first cell of level m's slot `back` slices before its newest.
  __device__ int level(int m, int back, int cells) const {
    const int slots = m == 0 ? kLevelZeroSlots : kLevelSlots;
    const int slot = (newest[m] - back + slots) % slots;
    return cells * (m == 0 ? slot : kLevelZeroSlots + kOlderSlots + kLevelSlots * (m - 1) + slot);
  }
  __device__ int level_zero_next(int cells) const {
    return cells * (newest[0] + 1 == kLevelZeroSlots ? 0 : newest[0] + 1);
  }
  __device__ int older_slot(bool fetched_now, int cells) const {
    return cells * (kLevelZeroSlots + (fetched_now ? older : older ^ 1));
  }
};

/// Where level J of slice s = p − J reads and writes in the ring (cell offsets), and whether its
/// slice is one the block writes out.
struct LevelSlots {
  const SharedFace* faces; ///< level J's faces at this position: delta is from the ring's start
  int centre;              ///< level J − 1 on slice s
  int older;               ///< level J − 2 on slice s (ψⁿ⁻¹ for J = 1)
  int out;                 ///< level J on slice s (J < K)
  int s;
  bool kept; ///< s in the block's chunk
};

/// One block's view of the grid: its grown tile's origin, its chunk of slices, its shared memory.
template <int MS, int F, int K> struct BlockedTile {
  const DeviceGrid& g;
  const Blocking& b;
  Complex* ring;        ///< the levels' slots (Slots)
  const double* planes; ///< fill_planes'
  int x0, y0;           ///< instance (x, y) of the grown tile's first cell
  int z_first, z_last;
  bool padded; ///< the lattice's cells have different face counts

  /// Asks for slice s of `from` into ring[to …] over the grown tile less `margin` instances a
  /// side (`walk` covers that region).
  __device__ void fetch(int to, const Complex* from, int s, int margin, const Walk& walk) const {
    fetch_slice<MS>(g, b, x0, y0, ring + to, from, s, margin, walk);
  }

  /// Level J of slice at.s on the tile grown by K − J; levels K − 1 and K of the tile's own cells
  /// in the block's chunk also go to `previous` and `last`.
  template <int J>
  __device__ void advance(const Walk& walk, const LevelSlots& at, Complex* previous,
                          Complex* last) const {
    if (padded) {
      advance_cells<J, true>(walk, at, previous, last);
    } else {
      advance_cells<J, false>(walk, at, previous, last);
    }
  }

  template <int J, bool PADDED>
  __device__ void advance_cells(const Walk& walk, const LevelSlots& at, Complex* previous,
                                Complex* last) const {
    if (at.s < 0 || at.s >= g.sz) { // beyond the domain: the Dirichlet zeros
      for (int r = walk.r, c = walk.c; J < K && r < walk.rows; walk.next(r, c)) {
        ring[at.out + (J + r) * b.ext_x * MS + J * MS + c] = Complex{0.0, 0.0};
      }
      return;
    }
    const long long slice = static_cast<long long>(at.s) * g.sy * g.sx * MS;
    const int row_stride = b.ext_x * MS;
    const int first = ((y0 + J) * g.sx + x0 + J) * MS; // the region's first cell within the slice
    for (int r = walk.r, c = walk.c; r < walk.rows; walk.next(r, c)) {
      const int l = c % MS;
      const int e = (J + r) * row_stride + J * MS + c;
      const double plane = planes[e];
      Complex next{0.0, 0.0};
      if (plane >= 0.0) { // in the domain
        const Complex psi_i = ring[at.centre + e];
        const Complex sum = ring_face_sum<MS, F, PADDED>(at.faces, ring, e, l, psi_i);
        const long long i = slice + first + r * g.sx * MS + c;
        const double v =
            g.potential != nullptr
                ? __ldg(g.potential + i)
                : harmonic_potential_from(plane, coordinate(g, 2, at.s + g.z_offset, l), g.lambda);
        next = step_along(ring[at.older + e], g.two_dt, apply_m(psi_i, sum, v, g.g));
        const int tx = c / MS;
        if (J == K && at.kept) {
          store(last + i, next);
        } else if (J == K - 1 && at.kept && tx >= 1 && tx <= b.tile_x && r >= 1 &&
                   r <= b.tile_y) { // the tile's own cells: one instance in from level K − 1's
          store(previous + i, next);
        }
      }
      if (J < K) {
        ring[at.out + e] = next;
      }
    }
  }
};

/// Where level J reads and writes at position p (Slots' newest are position p's).
template <int K, int J>
__device__ __forceinline__ LevelSlots level_slots(const Slots<K>& slots, const SharedFace* faces,
                                                  int p, int cells, int z_first, int z_last) {
  LevelSlots at{};
  at.faces = faces;
  at.s = p - J;
  at.centre = slots.level(J - 1, 1, cells); // level J − 1's newest is slice p − J + 1
  at.older = J == 1 ? slots.older_slot(false, cells) : slots.level(J - 2, 2, cells);
  at.out = J < K ? slots.level(J, 0, cells) : 0;
  at.kept = at.s >= z_first && at.s < z_last;
  return at;
}

/// Every level's faces at position p: the stencil table's with delta from the ring's start, so a
/// face costs one offset (table `hops`, F · MS entries; `faces`, K of them).
template <int MS, int F, int K>
__device__ void fill_position_faces(const Slots<K>& slots, const SharedFace* hops, int cells,
                                    SharedFace* faces) {
#pragma unroll
  for (int j = 1; j <= K; ++j) { // level j − 1's slices p − j − 1, p − j, p − j + 1
    const int below = slots.level(j - 1, 2, cells), centre = slots.level(j - 1, 1, cells),
              above = slots.level(j - 1, 0, cells);
    for (int e = static_cast<int>(threadIdx.x); e < F * MS; e += static_cast<int>(blockDim.x)) {
      const SharedFace h = hops[e];
      faces[(j - 1) * F * MS + e] = {h.weight,
                                     (h.dz < 0   ? below
                                      : h.dz > 0 ? above
                                                 : centre) +
                                         h.delta,
                                     h.dz};
    }
  }
}

/// The tile of block blockIdx.x, its ring and planes in shared memory.
template <int MS, int F, int K>
__device__ __forceinline__ BlockedTile<MS, F, K>
tile_of_block(const DeviceGrid& g, const Blocking& b, Complex* ring, double* planes) {
  const int block = static_cast<int>(blockIdx.x);
  const int tx = block % b.tiles_x, rest = block / b.tiles_x;
  const int ty = rest % b.tiles_y, chunk = rest / b.tiles_y;
  const int z_first = chunk * b.slices;
  return {g,
          b,
          ring,
          planes,
          tx * b.tile_x - K,
          ty * b.tile_y - K,
          z_first,
          min(z_first + b.slices, g.sz),
          g.wide_cells < MS};
}

/// Levels 1 … K at position p, a barrier after each: level J + 1 reads what level J wrote.
template <int MS, int F, int K>
__device__ __forceinline__ void
advance_levels(const BlockedTile<MS, F, K>& t, const Slots<K>& slots, const Walk (&levels)[K],
               const SharedFace* faces, int p, int p_first, Complex* previous, Complex* last) {
  const auto level = [&]<int J>(std::integral_constant<int, J>) {
    if (p >= p_first + 2 * J) { // level J's first slice is p_first + J
      const SharedFace* mine = faces + (J - 1) * F * MS;
      t.template advance<J>(levels[J - 1],
                            level_slots<K, J>(slots, mine, p, t.b.cells, t.z_first, t.z_last),
                            previous, last);
    }
    __syncthreads();
  };
  [&]<int... J>(std::integer_sequence<int, J...>) {
    (level(std::integral_constant<int, J + 1>{}), ...);
  }
  (std::make_integer_sequence<int, K>{});
}

/// K leapfrog steps from (older, newer): level K − 1 into `previous`, level K into `last`.
template <int MS, int F, int K>
__global__ void __launch_bounds__(kBlockedThreads, K <= 3 ? 3 : 2) // 85 registers, 128 at K = 4
    leapfrog_blocked(DeviceGrid g, Blocking b, const Complex* older, const Complex* newer,
                     Complex* __restrict__ previous, Complex* __restrict__ last) {
  extern __shared__ double2 shared[];
  const SharedLayout layout = SharedLayout::of(F * MS, K, b.cells);
  auto* const hops = reinterpret_cast<SharedFace*>(shared);
  auto* const faces = reinterpret_cast<SharedFace*>(shared + layout.position_faces);
  auto* const planes = reinterpret_cast<double*>(shared + layout.planes);
  const BlockedTile<MS, F, K> t =
      tile_of_block<MS, F, K>(g, b, reinterpret_cast<Complex*>(shared + layout.ring), planes);
  fill_shared_faces<MS, F>(g, b, hops);
  fill_planes<MS>(g, b, t.x0, t.y0, planes);
  const Walk whole = Walk::of(b.ext_x * MS, b.ext_y);
  const Walk inner = Walk::of((b.ext_x - 2) * MS, b.ext_y - 2);
  Walk levels[K];
#pragma unroll
  for (int j = 1; j <= K; ++j) {
    levels[j - 1] = Walk::of((b.tile_x + 2 * (K - j)) * MS, b.tile_y + 2 * (K - j));
  }
  const int p_first = t.z_first - K, p_end = t.z_last + K;
  Slots<K> slots;
  t.fetch(slots.level(0, 0, b.cells), newer, p_first, 0, whole);
  commit_copies();
  __syncthreads(); // the stencil table, read by fill_position_faces
  for (int p = p_first; p < p_end; ++p) {
    if (p + 1 < p_end) {
      t.fetch(slots.level_zero_next(b.cells), newer, p + 1, 0, whole);
    }
    if (p >= p_first + 1 && p + 1 < p_end) { // level 1's cells of the slice it does next
      t.fetch(slots.older_slot(true, b.cells), older, p, 1, inner);
    }
    commit_copies();
    fill_position_faces<MS, F, K>(slots, hops, b.cells, faces);
    wait_all_but_newest();
    __syncthreads();
    advance_levels<MS, F, K>(t, slots, levels, faces, p, p_first, previous, last);
    slots.rotate();
  }
}

} // namespace

BlockedShape parse_blocked(std::string_view text) {
  // x<tile_x>y<tile_y>z<slices>, each 1-999: for tuning a new GPU (docs/gpu.md).
  const std::vector<int> v = keyed_values(text, "xyz", 3);
  if (v.empty()) {
    throw std::invalid_argument("the temporal blocking's shape must be x<instances>y<instances>"
                                "z<slices>, each 1-999, got '" +
                                std::string(text.substr(0, 32)) + "'");
  }
  return {v[0], v[1], v[2]};
}

Blocking make_blocking(const DeviceGrid& g, BlockedShape shape, int steps) {
  Blocking b{};
  b.steps = steps;
  b.tile_x = std::min(shape.tile_x, g.sx);
  b.tile_y = std::min(shape.tile_y, g.sy);
  b.slices = std::min(shape.slices, g.sz);
  b.ext_x = b.tile_x + 2 * steps;
  b.ext_y = b.tile_y + 2 * steps;
  b.cells = b.ext_x * b.ext_y * g.ms;
  b.tiles_x = (g.sx + b.tile_x - 1) / b.tile_x;
  b.tiles_y = (g.sy + b.tile_y - 1) / b.tile_y;
  b.chunks = (g.sz + b.slices - 1) / b.slices;
  const int slots = kLevelZeroSlots + kOlderSlots + kLevelSlots * (steps - 1);
  const SharedLayout layout = SharedLayout::of(g.ms * g.max_faces, steps, b.cells);
  b.shared_bytes =
      sizeof(Complex) * (static_cast<std::size_t>(layout.ring) +
                         static_cast<std::size_t>(b.cells) * static_cast<std::size_t>(slots));
  return b;
}

std::size_t blocked_shared_limit() {
  int device = 0, limit = 0;
  DECGPE_CUDA_CHECK(cudaGetDevice(&device));
  DECGPE_CUDA_CHECK(
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(limit);
}

void launch_leapfrog_blocked(const DeviceGrid& g, const Blocking& b, const Complex* older,
                             const Complex* newer, Complex* previous, Complex* last,
                             cudaStream_t stream) {
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if constexpr (ms <= kMostBlockedCells) {
      const auto launch = [&](auto kernel) {
        launch_blocked(kernel, b, stream, g, b, older, newer, previous, last);
      };
      if (b.steps == 2) {
        launch(leapfrog_blocked<ms, faces, 2>);
      } else if (b.steps == 3) {
        launch(leapfrog_blocked<ms, faces, 3>);
      } else {
        launch(leapfrog_blocked<ms, faces, 4>);
      }
    }
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
