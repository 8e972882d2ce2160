#pragma once
// The staged sweep: a block walks a tile of tile × rows structure instances through a chunk of
// z-slices, and brings each slice of ψ over the tile grown by one instance a side (two cells where
// an instance is one) into shared memory with cp.async, a slice ahead of the one it updates (the
// copy engine's zero fill is the Dirichlet zero beyond the domain). A cell's faces are then read
// from shared memory: the SMs ask the L2 for ψ once a cell and a rim, where the sweep's one-row
// blocks ask for the rows above and below again (docs/gpu.md, "The sweep is bound by the L2").
// The op's early operand (the leapfrog's ψⁿ⁻¹) is loaded from global memory before the block waits
// for its slice, `ahead` slices of it asked into L2 with the bulk prefetch. Lab frame only; each
// cell's arithmetic is the sweep's (the frame's face sum in table order, update_cell), so it is
// bitwise the reference.
//
// Instructions, not bytes, bound such a kernel (its first form issued 0.91 warps a cycle): a
// thread's 16-byte copies are found once (StagedCopies), the table holds the weight already in
// Real, and it is kept once for each of the ring's four phases, its offsets already wrapped, so
// that a face's neighbour is one add from the cell: no mask, and slots of exactly a grown slice's
// cells (a ring of powers of two held BCC's and FCC's t8x8 blocks to three an SM).
//
// Threads: a row of the tile is tile · MS cells, `rows_at_once` rows a pass (threads = the two's
// product, at most kSweepThreads); a thread keeps its column and takes R rows, rows_at_once apart.

#include "solvers/cuda/blocked_tile.cuh"
#include "solvers/cuda/sweep.cuh"

namespace decgpe::cuda {

/// The ring: four slots (slices p − 1, p, p + 1 and p + 2 in flight) of a grown slice each; the
/// slice being updated takes them in turn, its slot the ring's phase.
constexpr int kStagedSlots = 4;
/// The most 16-byte copies a thread makes a slice (StagedCopies).
constexpr int kStagedCopies = 4;

/// The grown tile of a staged sweep: `lead` cells before the tile in a grown row (an instance, or
/// two cells where an instance is one cell, so that rows start on 16 bytes), `row` cells a grown
/// row, `cells` a grown slice and a ring slot (whole 16-byte words where staged_unfit() holds).
template <int MS> struct StagedShape {
  static constexpr int lead = MS == 1 ? 2 : MS;
  int row, cells;

  __host__ __device__ static StagedShape of(const Tiling& t) {
    const int row = t.tile * MS + 2 * lead;
    return {row, row * (t.rows + 2)};
  }
};

/// A face of the stencil table in the grown tile's terms: its weight rounded to Real (as the sweep
/// rounds it at its use) and the neighbour's offset in the ring from the cell in one phase.
template <class Real> struct StagedFace {
  Real weight; ///< 0: padding (its offset is 0, so a read of it stays in the slot)
  int offset;
};

/// The stencil table in the grown tile's terms, into shared memory: F · MS entries for each phase
/// p of the ring, where slice z + dz lies (p + dz) mod 4 − p slots from the cell's slice z.
template <int MS, int F, class Real>
__device__ void fill_staged_faces(const DeviceGrid& g, const StagedShape<MS>& s,
                                  StagedFace<Real>* faces) {
  for (int n = static_cast<int>(threadIdx.x); n < kStagedSlots * F * MS;
       n += static_cast<int>(blockDim.x)) {
    const int phase = n / (F * MS), e = n - phase * F * MS;
    const Face fc = face(g, e);
    const int slots = (phase + fc.dz + kStagedSlots) % kStagedSlots - phase;
    const int offset = slots * s.cells + fc.dy * s.row + fc.dx * MS + fc.local - e % MS;
    faces[n] = {static_cast<Real>(fc.weight), fc.weight == 0.0 ? 0 : offset};
  }
}

/// A thread's 16-byte copies of a slice, found once: where each lands in a slot (in values) and
/// where it reads within a slice (in values; −1 outside the domain's rows and columns).
struct StagedCopies {
  int to[kStagedCopies];
  int from[kStagedCopies];
  int count;

  template <int MS, int UNIT>
  __device__ static StagedCopies of(const DeviceGrid& g, const StagedShape<MS>& s, int x0, int y0) {
    StagedCopies c{};
    const int units_a_row = s.row / UNIT;
    int k = 0;
#pragma unroll
    for (int n = 0; n < kStagedCopies; ++n) {
      const int u = static_cast<int>(threadIdx.x) + n * static_cast<int>(blockDim.x);
      if (u < s.cells / UNIT) {
        const int r = u / units_a_row, cell = (u - r * units_a_row) * UNIT;
        const int y = y0 - 1 + r;
        const int x_first = x0 * MS - StagedShape<MS>::lead + cell; // the unit's first cell in x
        const bool in = x_first >= 0 && x_first < g.sx * MS && y >= 0 && y < g.sy;
        c.to[n] = r * s.row + cell;
        c.from[n] = in ? y * g.sx * MS + x_first : -1;
        k = n + 1;
      }
    }
    c.count = k;
    return c;
  }
};

/// Asks for stored slice s of `in` into slot `to` (a thread's copies), zeros outside the domain.
template <class Value>
__device__ __forceinline__ void fetch_staged(const DeviceGrid& g, const StagedCopies& c, Value* to,
                                             const Value* in, long long slice, int s) {
  const int gz = s + g.z_offset;
  const bool slice_in = gz >= 0 && gz < g.global_z && s >= 0 && s < g.sz;
  const Value* from = in + (slice_in ? s * slice : 0);
#pragma unroll
  for (int n = 0; n < kStagedCopies; ++n) {
    if (n < c.count) {
      const bool in_domain = slice_in && c.from[n] >= 0;
      copy_async(to + c.to[n], in_domain ? from + c.from[n] : in, in_domain);
    }
  }
}

/// The face sum of the cell at `at` of the ring, in the table's order: the sweep's arithmetic
/// (add_face of the weight in Real), the neighbours read from shared memory. `faces`: the table of
/// the ring's phase.
template <int MS, int F, class Real, class Value>
__device__ __forceinline__ BasicComplex<Real>
staged_face_sum(const StagedFace<Real>* faces, const Value* ring, int at, int l, bool padded,
                BasicComplex<Real> psi_i) {
  BasicComplex<Real> sum{0, 0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const StagedFace<Real> h = faces[f * MS + l];
    if (padded && h.weight == Real(0)) {
      break;
    }
    sum = add_face(sum, h.weight, psi_i, convert<Real>(ring[at + h.offset]));
  }
  return sum;
}

/// A staged sweep block's dynamic shared memory: the table, then (16-byte aligned) the ring.
template <int MS, int F, class Real, class Value> struct StagedMemory {
  static constexpr std::size_t kTableBytes =
      (sizeof(StagedFace<Real>) * kStagedSlots * F * MS + 15) / 16 * 16;
  StagedFace<Real>* faces;
  Value* ring;

  __device__ static StagedMemory of() {
    extern __shared__ __align__(16) unsigned char staged_shared[];
    return {reinterpret_cast<StagedFace<Real>*>(staged_shared),
            reinterpret_cast<Value*>(staged_shared + kTableBytes)};
  }
  static std::size_t bytes(const Tiling& t) {
    return kTableBytes + sizeof(Value) * kStagedSlots * StagedShape<MS>::of(t).cells;
  }
};

/// What block `block` of a staged sweep over [z_begin, z_end) walks: the tile at (x0, y0) through
/// its chunk of slices.
struct StagedBlock {
  int x0, y0, z_first, z_last;

  __device__ static StagedBlock of(const Tiling& t, int block, int z_begin, int z_end) {
    const int column = block / t.tiles_per_row; // (row group, chunk)
    const int chunk = column / t.row_groups;
    const int z_first = z_begin + chunk * t.slices;
    return {(block - column * t.tiles_per_row) * t.tile, (column - chunk * t.row_groups) * t.rows,
            z_first, min(z_first + t.slices, z_end)};
  }
};

/// A staged sweep's thread's R cells: its column (instance sx, local index l) in R rows of the
/// tile, rows_at_once apart, each with its index within a slice and its column's frame.
template <int MS, int R> struct StagedCells {
  int column, first_row, row_step, sx, l;
  int in_row;  ///< the column's place in a grown row: lead + column
  bool padded; ///< the lattice's cells of fewer faces end their rows with weight 0
  bool active[R];
  int own[R];
  LabColumn frame[R];

  __device__ static StagedCells of(const DeviceGrid& g, const Tiling& t, const StagedBlock& b) {
    StagedCells c;
    const int width = t.tile * MS;
    c.column = static_cast<int>(threadIdx.x) % width;
    c.first_row = static_cast<int>(threadIdx.x) / width;
    c.row_step = static_cast<int>(blockDim.x) / width;
    const int tx = c.column / MS;
    c.l = c.column - tx * MS;
    c.sx = b.x0 + tx;
    c.padded = g.wide_cells < MS;
    c.in_row = StagedShape<MS>::lead + c.column;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int sy = b.y0 + c.row(r);
      c.active[r] = c.sx < g.sx && sy < g.sy && c.row(r) < t.rows;
      c.own[r] = (sy * g.sx + c.sx) * MS + c.l;
      c.frame[r] = c.active[r] ? LabColumn::at(g, c.sx, sy, c.l) : LabColumn{};
    }
    return c;
  }
  /// Row r's place within the tile.
  __device__ int row(int r) const {
    return first_row + r * row_step;
  }
  /// The op's early operands of the R cells in slice sz (`slice` cells a slice).
  template <class Op>
  __device__ void load_early(const Op& op, int sz, long long slice,
                             typename Op::Early (&early)[R]) const {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (active[r]) {
        early[r] = op.early(sz * slice + own[r]);
      }
    }
  }
};

/// Where thread r < rows of a block asks L2 for row r of the tile's early operand (op.prefetch).
struct StagedPrefetch {
  bool asks;
  long long row_at;
  unsigned row_bytes;

  template <class Value>
  __device__ static StagedPrefetch of(const DeviceGrid& g, const Tiling& t, const StagedBlock& b,
                                      int ms) {
    const int row = static_cast<int>(threadIdx.x);
    return {row < t.rows && b.y0 + row < g.sy,
            (static_cast<long long>(b.y0 + row) * g.sx + b.x0) * ms,
            static_cast<unsigned>(min(t.tile, g.sx - b.x0) * ms * sizeof(Value))};
  }
  /// The rows of the chunk's first `ahead` slices.
  template <class Op>
  __device__ void first(const Op& op, const Tiling& t, const StagedBlock& b,
                        long long slice) const {
    if (asks) {
      for (int z = b.z_first; z < min(b.z_first + t.ahead, b.z_last); ++z) {
        op.prefetch(z * slice + row_at, row_bytes);
      }
    }
  }
  /// The row of slice sz + ahead, while slice sz is updated.
  template <class Op>
  __device__ void next(const Op& op, const Tiling& t, const StagedBlock& b, long long slice,
                       int sz) const {
    if (asks && t.ahead > 0 && sz + t.ahead < b.z_last) {
      op.prefetch((sz + t.ahead) * slice + row_at, row_bytes);
    }
  }
};

/// The staged sweep of block `block` over [z_begin, z_end): R rows a thread.
template <int MS, int F, int R, class Op>
__device__ __forceinline__ void sweep_staged(const DeviceGrid& g, const Tiling& t,
                                             const typename Op::Value* in, const Op& op, int block,
                                             int z_begin, int z_end) {
  using Real = typename Op::Real;
  using Value = typename Op::Value;
  const auto [faces, ring] = StagedMemory<MS, F, Real, Value>::of();
  const StagedBlock b = StagedBlock::of(t, block, z_begin, z_end);
  const StagedShape<MS> shape = StagedShape<MS>::of(t);
  const long long slice = static_cast<long long>(g.sy) * g.sx * MS;
  fill_staged_faces<MS, F>(g, shape, faces);
  const StagedCopies copies =
      StagedCopies::of<MS, 16 / static_cast<int>(sizeof(Value))>(g, shape, b.x0, b.y0);
  for (int n = 0; n < 3; ++n) { // the prologue: slices z_first − 1 … z_first + 1 in slots 0-2
    fetch_staged(g, copies, ring + n * shape.cells, in, slice, b.z_first - 1 + n);
  }
  commit_copies();
  const StagedCells<MS, R> cells = StagedCells<MS, R>::of(g, t, b);
  const StagedPrefetch ask = StagedPrefetch::of<Value>(g, t, b, MS);
  ask.first(op, t, b, slice);
  int phase = 1; // slice sz's slot
#pragma unroll 1
  for (int sz = b.z_first; sz < b.z_last; ++sz) {
    ask.next(op, t, b, slice, sz);
    typename Op::Early early[R];
    cells.load_early(op, sz, slice, early); // in flight while the slice comes in
    wait_all_copies();
    __syncthreads(); // slice sz + 1 is in, and every thread is done with slice sz − 2's slot
    if (sz + 2 <= b.z_last) {
      fetch_staged(g, copies, ring + (phase + 2) % kStagedSlots * shape.cells, in, slice, sz + 2);
    }
    commit_copies();
    const int gz = sz + g.z_offset, here = phase * shape.cells;
    const StagedFace<Real>* table = faces + phase * F * MS;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (cells.active[r]) {
        const int ty = cells.first_row + r * cells.row_step;
        const int at = here + (ty + 1) * shape.row + cells.in_row;
        const BasicComplex<Real> psi_i = convert<Real>(ring[at]);
        const BasicComplex<Real> sum =
            staged_face_sum<MS, F>(table, ring, at, cells.l, cells.padded, psi_i);
        update_cell<true>(g, cells.frame[r], op, cells.sx, b.y0 + ty, gz, cells.l,
                          sz * slice + cells.own[r], early[r], psi_i, sum);
      }
    }
    phase = (phase + 1) % kStagedSlots;
  }
}

template <int MS, int F, int R, int MIN_BLOCKS, class Op>
__global__ void __launch_bounds__(kSweepThreads, MIN_BLOCKS)
    staged_sweep(DeviceGrid g, Tiling t, const typename Op::Value* __restrict__ in, Op op,
                 int z_begin, int z_end) {
  sweep_staged<MS, F, R, Op>(g, t, in, op, static_cast<int>(blockIdx.x), z_begin, z_end);
}

/// Calls f(std::integral_constant<int, R>{}) with t's rows a thread: 1, 2 or 4 (make_tiling).
template <int MS, class Fn> void with_staged_rows(const Tiling& t, Fn&& f) {
  const int rows_at_once = t.threads / (t.tile * MS);
  const int r = (t.rows + rows_at_once - 1) / rows_at_once;
  if (r == 1) {
    f(std::integral_constant<int, 1>{});
  } else if (r == 2) {
    f(std::integral_constant<int, 2>{});
  } else {
    f(std::integral_constant<int, 4>{});
  }
}

/// Launches the staged sweep of `op` over [z_begin, z_end) (lab frame), its shared memory opted in
/// (a tiling staged_unfit() accepts).
template <int MS, int F, class Op>
void launch_staged(const Tiling& t, const DeviceGrid& g, const typename Op::Value* in, const Op& op,
                   int z_begin, int z_end, cudaStream_t stream) {
  using Value = typename Op::Value;
  const long long chunks = (z_end - z_begin + t.slices - 1) / t.slices;
  const auto blocks =
      static_cast<unsigned>(static_cast<long long>(t.tiles_per_row) * t.row_groups * chunks);
  if (blocks == 0) {
    return;
  }
  const std::size_t bytes = StagedMemory<MS, F, typename Op::Real, Value>::bytes(t);
  with_staged_rows<MS>(t, [&](auto rows) {
    const auto launch = [&](auto kernel) {
      DECGPE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes)));
      kernel<<<blocks, t.threads, bytes, stream>>>(g, t, in, op, z_begin, z_end);
    };
    if (t.min_blocks == 8) {
      launch(staged_sweep<MS, F, rows, 8, Op>);
    } else if (t.min_blocks == 6) {
      launch(staged_sweep<MS, F, rows, 6, Op>);
    } else {
      launch(staged_sweep<MS, F, rows, 4, Op>);
    }
  });
}

} // namespace decgpe::cuda
