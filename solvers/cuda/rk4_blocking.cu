// RK4's stages fused in pairs: a step is two passes over memory instead of four, 112 B per cell
// instead of 256. The first pass takes stages 0 and 1 from ψ and writes acc and y₂; the second
// takes stages 2 and 3 from y₂ (with ψ and acc) and writes the step's ψ. Between the two stages of
// a pass, y₁ (or y₃) and acc stay in shared memory, so k₁…k₄ never go to DRAM.
//
// The walk is the leapfrog's temporal blocking at k = 2 (temporal_blocking.cu, blocked_tile.cuh):
// a block owns a tile of instances grown by two a side and walks a chunk of z-slices. At position
// p it has the pass's input of slice p and computes the first stage on slice p − 1 over the tile
// grown by one (from the input's slices p − 2 … p), then the second stage on slice p − 2 over the
// tile itself (from the first stage's y on p − 3 … p − 1). Each tile recomputes its neighbours'
// rim, so no block waits for another; the second pass writes a vector that no block reads.
//
// Shared memory: the input's slices (4 slots: p − 2 … p, and p + 1 in flight), the first stage's
// y (3 slots) and its acc (2 slots: slice p − 1 written, p − 2 read): the leapfrog's 9 at k = 2.
// The second pass's ψ and acc are read by the first stage alone, each cell once, from global
// memory. Each cell's arithmetic is the RK4 stage kernels' (add_face in table order, apply_m,
// step_along with the same τ), so a step here is bitwise the four stages.

#include "solvers/cuda/blocked_tile.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

namespace decgpe::cuda {

namespace {

constexpr int kInputSlots = 4; // the pass's input: slices p − 2 … p, and p + 1 in flight
constexpr int kStageSlots = 3; // the first stage's y: slices p − 3 … p − 1
constexpr int kAccSlots = 2;   // the first stage's acc: slice p − 1 written, p − 2 read

/// Slot offsets (cells from the ring's start) of the slices a position p reads and writes.
struct PairSlots {
  int input[3]; ///< the input's slices p − 2, p − 1, p
  int input_next;
  int y[3];      ///< y's slices p − 3, p − 2, p − 1
  int acc_write; ///< slice p − 1
  int acc_read;  ///< slice p − 2

  __device__ static PairSlots at(int p, int cells) {
    const auto mod = [](int s, int n) { return (s % n + n) % n; };
    PairSlots slots{};
    for (int j = 0; j < 3; ++j) {
      slots.input[j] = cells * mod(p - 2 + j, kInputSlots);
      slots.y[j] = cells * (kInputSlots + mod(p - 3 + j, kStageSlots));
    }
    slots.input_next = cells * mod(p + 1, kInputSlots);
    slots.acc_write = cells * (kInputSlots + kStageSlots + mod(p - 1, kAccSlots));
    slots.acc_read = cells * (kInputSlots + kStageSlots + mod(p - 2, kAccSlots));
    return slots;
  }
};

/// Both stages' faces at position p (the stencil table's, `delta` from the ring's start): the
/// first stage's over the input's slices, the second's over y's.
template <int MS, int F>
__device__ void fill_pair_faces(const PairSlots& slots, const SharedFace* hops, SharedFace* faces) {
  for (int e = static_cast<int>(threadIdx.x); e < F * MS; e += static_cast<int>(blockDim.x)) {
    const SharedFace h = hops[e];
    // the slice below, the cell's, above (selected, not indexed: the slots stay in registers)
    const int input = h.dz < 0 ? slots.input[0] : h.dz > 0 ? slots.input[2] : slots.input[1];
    const int y = h.dz < 0 ? slots.y[0] : h.dz > 0 ? slots.y[2] : slots.y[1];
    faces[e] = {h.weight, input + h.delta, h.dz};
    faces[F * MS + e] = {h.weight, y + h.delta, h.dz};
  }
}

/// One block's tile, its ring, and the pass's vectors.
template <int MS, int F, bool SECOND> struct PairTile {
  const DeviceGrid& g;
  const Blocking& b;
  const Rk4Pair& v;
  Complex* ring;
  const double* planes;
  const SharedFace* faces; ///< fill_pair_faces'
  int x0, y0;
  int z_first, z_last;

  /// m = M(u)u at ring cell e of slice s (global index i), u from the slots `faces` read.
  template <bool PADDED>
  __device__ Complex m_at(const SharedFace* stage_faces, int centre, int e, int l, int s,
                          long long i, double plane) const {
    const Complex u = ring[centre + e];
    const Complex sum = ring_face_sum<MS, F, PADDED>(stage_faces, ring, e, l, u);
    const double pot =
        g.potential != nullptr
            ? __ldg(g.potential + i)
            : harmonic_potential_from(plane, coordinate(g, 2, s + g.z_offset, l), g.lambda);
    return apply_m(u, sum, pot, g.g);
  }

  /// The first stage on slice s = p − 1 over the tile grown by one: y and acc into the ring.
  template <bool PADDED> __device__ void first(const Walk& walk, const PairSlots& at, int s) const {
    const int row_stride = b.ext_x * MS;
    const bool slice_in = s >= 0 && s < g.sz;
    const long long slice = static_cast<long long>(s) * g.sy * g.sx * MS;
    const int origin = ((y0 + 1) * g.sx + x0 + 1) * MS;
    for (int r = walk.r, c = walk.c; r < walk.rows; walk.next(r, c)) {
      const int e = (1 + r) * row_stride + MS + c;
      const double plane = planes[e];
      Complex y{0.0, 0.0};
      if (slice_in && plane >= 0.0) {
        const long long i = slice + origin + r * g.sx * MS + c;
        const Complex base = SECOND ? load_ro(v.base + i) : ring[at.input[1] + e];
        const Complex acc = SECOND ? load_ro(v.acc_in + i) : base;
        const Complex m = m_at<PADDED>(faces, at.input[1], e, c % MS, s, i, plane);
        ring[at.acc_write + e] = step_along(acc, v.tau[0], m);
        y = step_along(base, v.tau[1], m);
      }
      ring[at.y[2] + e] = y; // 0 beyond the domain: the second stage's Dirichlet zeros
    }
  }

  /// The second stage on slice s = p − 2 over the tile: the first pass writes acc and y₂, the
  /// second the step's ψ.
  template <bool PADDED>
  __device__ void second(const Walk& walk, const PairSlots& at, int s) const {
    const int row_stride = b.ext_x * MS;
    const long long slice = static_cast<long long>(s) * g.sy * g.sx * MS;
    const int origin = ((y0 + 2) * g.sx + x0 + 2) * MS;
    for (int r = walk.r, c = walk.c; r < walk.rows; walk.next(r, c)) {
      const int e = (2 + r) * row_stride + 2 * MS + c;
      const double plane = planes[e];
      if (plane < 0.0) {
        continue;
      }
      const long long i = slice + origin + r * g.sx * MS + c;
      const Complex m = m_at<PADDED>(faces + F * MS, at.y[1], e, c % MS, s, i, plane);
      const Complex acc = step_along(ring[at.acc_read + e], v.tau[2], m);
      if (SECOND) {
        store(v.next + i, acc);
      } else {
        store(v.acc_out + i, acc);
        store(v.next + i, step_along(ring[at.input[0] + e], v.tau[3], m));
      }
    }
  }
};

/// Two RK4 stages of the tile of block blockIdx.x through its chunk of slices.
template <int MS, int F, bool SECOND>
__global__ void __launch_bounds__(kBlockedThreads, 3) // the leapfrog's k = 2 cap: 85 registers
    rk4_pair(DeviceGrid g, Blocking b, Rk4Pair v) {
  extern __shared__ double2 shared[];
  const SharedLayout layout = SharedLayout::of(F * MS, 2, b.cells);
  auto* const hops = reinterpret_cast<SharedFace*>(shared);
  auto* const faces = reinterpret_cast<SharedFace*>(shared + layout.position_faces);
  auto* const planes = reinterpret_cast<double*>(shared + layout.planes);
  auto* const ring = reinterpret_cast<Complex*>(shared + layout.ring);
  const int block = static_cast<int>(blockIdx.x);
  const int tx = block % b.tiles_x, rest = block / b.tiles_x;
  const int chunk = rest / b.tiles_y, z_first = chunk * b.slices;
  const int x0 = tx * b.tile_x - 2, y0 = (rest % b.tiles_y) * b.tile_y - 2;
  const PairTile<MS, F, SECOND> t{g,     b,  v,  ring,    planes,
                                  faces, x0, y0, z_first, min(z_first + b.slices, g.sz)};
  fill_shared_faces<MS, F>(g, b, hops);
  fill_planes<MS>(g, b, t.x0, t.y0, planes);
  const Walk whole = Walk::of(b.ext_x * MS, b.ext_y);
  const Walk grown = Walk::of((b.tile_x + 2) * MS, b.tile_y + 2);
  const Walk own = Walk::of(b.tile_x * MS, b.tile_y);
  const bool padded = g.wide_cells < MS;
  const int p_first = t.z_first - 2, p_end = t.z_last + 2;
  fetch_slice<MS>(g, b, t.x0, t.y0, ring + PairSlots::at(p_first - 1, b.cells).input_next, v.in,
                  p_first, 0, whole);
  commit_copies();
  __syncthreads(); // the stencil table, read by fill_pair_faces
  for (int p = p_first; p < p_end; ++p) {
    const PairSlots at = PairSlots::at(p, b.cells);
    if (p + 1 < p_end) {
      fetch_slice<MS>(g, b, t.x0, t.y0, ring + at.input_next, v.in, p + 1, 0, whole);
    }
    commit_copies();
    fill_pair_faces<MS, F>(at, hops, faces);
    wait_all_but_newest();
    __syncthreads();
    if (p >= p_first + 2) { // the first stage's first slice is p_first + 1
      padded ? t.template first<true>(grown, at, p - 1) : t.template first<false>(grown, at, p - 1);
    }
    __syncthreads();
    if (p >= p_first + 4) { // the second stage's first slice is z_first
      padded ? t.template second<true>(own, at, p - 2) : t.template second<false>(own, at, p - 2);
    }
    __syncthreads();
  }
}

} // namespace

void launch_rk4_pair(const DeviceGrid& g, const Blocking& b, const Rk4Pair& v,
                     cudaStream_t stream) {
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if constexpr (ms <= kMostBlockedCells) {
      if (v.second) {
        launch_blocked(rk4_pair<ms, faces, true>, b, stream, g, b, v);
      } else {
        launch_blocked(rk4_pair<ms, faces, false>, b, stream, g, b, v);
      }
    }
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
