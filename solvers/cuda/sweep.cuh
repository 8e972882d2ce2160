#pragma once
// The sweep: the z-walking block every stencil pass of a scheme shares (the leapfrog step, the RK4
// stages, M·ψ, the Chebyshev terms). A block is a tile of one y-row that walks t.slices
// consecutive z-slices, so the row it just did (z − 1) and the one it does next (z + 1) are met
// again in L1; with t.ahead its first thread asks the bulk-copy engine to bring the tile's rows
// that many slices ahead into L2 (one instruction: no registers or warps held while the bytes are
// in flight). Interior warps sum their faces without the boundary tests; __launch_bounds__'s
// MIN_BLOCKS sets the register cap (64 at 4 blocks of 256), so every load of a cell is in flight
// at once; in single precision, on lattices of several cells an instance, interior warps take two
// slices at once where both are inside (kSlicesAtOnce), so that a thread has as many bytes in
// flight as in double; on lattices of one cell an instance the leapfrog's thread takes two
// instances instead (kTakesPairs), in 16-byte accesses.
//
// What a pass does with a cell is an operation object, in a precision (solvers/precision.hpp):
//   Op::Value, Op::Real             the stored complex and the real type the cell computes in
//   Op::Early early(i)              the cell's other operands as stored, loaded before the face sum
//   void prefetch(at, bytes)        prefetch_l2 of the vectors early() reads
//   void operator()(i, e, ψ_i, r)   the update, r = (M(ψ)ψ)_i (kApplyM) or Σ_F w_F (ψ_i − ψ_j)
// with the arithmetic of solvers/cell_arithmetic.hpp in Real, so every pass is bitwise equal to
// reference in the same precision.

#include "solvers/cuda/cell_access.cuh"

#include <type_traits>

namespace decgpe::cuda {

constexpr int kSweepThreads = 256;
static_assert(kSweepThreads <= kMaxStencilThreads, "a rotating frame keeps a phase per thread");

/// Asks the bulk-copy engine to bring `bytes` of values from global memory into L2. The instruction
/// takes 16-byte aligned addresses and sizes: a range of 8-byte values (single, mixed) is narrowed
/// to the 16-byte words inside it, so nothing outside the vector is named (a hint: the ends' words
/// come with the neighbouring rows or the loads).
template <class Value> __device__ __forceinline__ void prefetch_l2(const Value* p, unsigned bytes) {
  auto from = reinterpret_cast<unsigned long long>(p);
  auto to = from + bytes;
  if constexpr (sizeof(Value) % 16 != 0) {
    from = (from + 15) & ~15ULL;
    to &= ~15ULL;
    if (to <= from) {
      return;
    }
  }
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(from),
               "r"(static_cast<unsigned>(to - from))
               : "memory");
}

/// The structure instance (within the tile) and local index of a sweep's thread. Where cells have
/// different face counts (FCC: octahedra 8, tetrahedra 4), t.by_faces takes the cells with the most
/// faces of every instance first and the rest after, so that a warp's cells have the same faces
/// and its loop ends together; otherwise the threads take the cells in memory order.
template <int MS>
__device__ __forceinline__ void sweep_cell(const DeviceGrid& g, const Tiling& t, int& tx, int& l) {
  const int thread = threadIdx.x;
  if (!t.by_faces) {
    tx = thread / MS;
    l = thread - tx * MS;
    return;
  }
  const int wide = g.wide_cells, narrow = MS - wide;
  const int first = wide * t.tile; // threads of the wide cells
  const int k = thread < first ? thread : thread - first;
  const int per = thread < first ? wide : narrow;
  tx = k / per;
  l = __ldg(g.by_faces + (thread < first ? 0 : wide) + (k - tx * per));
}

/// How a sweep reads ψ: through the read-only path while nothing writes it during the kernel (every
/// pass but the wavefront), or coherently, where the kernel's other blocks wrote it before an
/// acquire (the wavefront: the read-only path is outside the memory model).
struct ReadOnlyLoads {
  template <class S> __device__ static BasicComplex<S> at(const BasicComplex<S>* p) {
    return load_ro(p);
  }
};
struct CoherentLoads {
  template <class S> __device__ static BasicComplex<S> at(const BasicComplex<S>* p) {
    return load(p);
  }
};

/// Whether op's interior face loop ends a row at its first weight 0 (padding). Only FCC pads its
/// rows (its tetrahedra have 4 of 8 faces); a lattice of 4 faces at most has none (the backend
/// refuses its table otherwise), and without the test a thread issues all its face loads at once.
/// A pass drops it on the 4-face lattices where that was measured faster: an Op whose
/// kUntestedRowEnds says so in its precision, sweeping in the lab frame with read-only loads
/// (docs/gpu.md, "No row-end test"). Cubic's and cubic4's rows are full too; without the test the
/// leapfrog lost 7-9% on cubic and 8% on cubic4 in single (+1% and +3% in double and mixed, not
/// taken). M·ψ, the Chebyshev terms, the rotating frame and the wavefront were not measured.
template <class Op> constexpr bool untested_row_ends() {
  if constexpr (requires { Op::kUntestedRowEnds; }) {
    return Op::kUntestedRowEnds;
  } else {
    return false;
  }
}
template <class Op, int F, class Loads, class Frame>
constexpr bool kTestsRowEnds =
    !(F == 4 && untested_row_ends<Op>() && std::is_same_v<Loads, ReadOnlyLoads> &&
      std::is_same_v<Frame, LabColumn>);

/// The face sums of N cells of one column (same instance and local index l, so the same faces),
/// all of whose neighbours are in the domain: the loop skips the tests, and each face's table entry
/// and weight serve the N cells. Σ over the faces in the table's order (padding, weight 0, last).
template <int MS, int F, int N, bool TESTS_ROW_ENDS, class Loads, class Frame, class Real, class S>
__device__ __forceinline__ void inner_face_sums(const DeviceGrid& g, const Frame& frame,
                                                const BasicComplex<S>* in, const long long (&i)[N],
                                                int l, const BasicComplex<Real> (&psi)[N],
                                                BasicComplex<Real> (&sum)[N]) {
#pragma unroll
  for (int n = 0; n < N; ++n) {
    sum[n] = {0, 0};
  }
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const FaceWeight fw = face_weight(g, f * MS + l);
    if (TESTS_ROW_ENDS && fw.weight == 0.0) {
      break;
    }
#pragma unroll
    for (int n = 0; n < N; ++n) {
      sum[n] = frame.add(sum[n], f, fw.slot, fw.weight, psi[n],
                         convert<Real>(Loads::at(in + i[n] + fw.delta)));
    }
  }
#pragma unroll
  for (int n = 0; n < N; ++n) {
    sum[n] = frame.total(sum[n], psi[n]);
  }
}

/// The frame's face sum of one cell over the faces in the table's order, ψ_j = 0 beyond the
/// domain, in Real; `inner`: no neighbour leaves the domain, so the loop skips the tests.
template <int MS, int F, bool TESTS_ROW_ENDS, class Loads, class Frame, class Real, class S>
__device__ __forceinline__ BasicComplex<Real>
sweep_face_sum(const DeviceGrid& g, const Frame& frame, const BasicComplex<S>* in, long long i,
               int sx, int sy, int gz, int l, BasicComplex<Real> psi_i, bool inner, bool y_inner,
               bool z_inner) {
  if (inner) {
    BasicComplex<Real> sum[1];
    inner_face_sums<MS, F, 1, TESTS_ROW_ENDS, Loads>(g, frame, in, {i}, l, {psi_i}, sum);
    return sum[0];
  }
  BasicComplex<Real> sum{0, 0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const Face fc = face(g, f * MS + l);
    if (fc.weight == 0.0) {
      break;
    }
    const int nx = sx + fc.dx, ny = sy + fc.dy, nz = gz + fc.dz;
    const bool in_domain = nx >= 0 && nx < g.sx && (y_inner || (ny >= 0 && ny < g.sy)) &&
                           (z_inner || (nz >= 0 && nz < g.global_z));
    sum = frame.add(sum, f, fc.slot, fc.weight, psi_i,
                    in_domain ? convert<Real>(Loads::at(in + i + fc.delta))
                              : BasicComplex<Real>{0, 0});
  }
  return frame.total(sum, psi_i);
}

/// What block `block` of a sweep over [z_begin, z_end) walks (the blocks: tiles × y-rows × chunks
/// of t.slices): one tile of one y-row through its chunk of slices.
struct SweepColumn {
  int x0, sy;
  int z_first, z_last;
  int slice;          ///< cells in a slice; offsets within one are ints (the backend refuses grids
                      ///< where they would not be): fewer registers live across the loop
  int segment;        ///< the tile's first cell within a slice
  unsigned row_bytes; ///< the tile's bytes within a row (of values of `value_bytes`)

  template <int MS, int value_bytes>
  __device__ __forceinline__ static SweepColumn of(const DeviceGrid& g, const Tiling& t, int block,
                                                   int z_begin, int z_end) {
    const int column = block / t.tiles_per_row; // (sy, chunk of slices)
    const int x0 = (block - column * t.tiles_per_row) * t.tile;
    const int chunk = column / g.sy;
    const int sy = column - chunk * g.sy;
    const int z_first = z_begin + chunk * t.slices;
    return {x0,
            sy,
            z_first,
            min(z_first + t.slices, z_end),
            g.sy * g.sx * MS,
            (sy * g.sx + x0) * MS,
            static_cast<unsigned>(min(t.tile, g.sx - x0) * MS * value_bytes)};
  }

  /// Asks L2 for the tile's rows of the slices [from, to) of this chunk, of ψ and of what `op`
  /// reads early. Only the block's own chunk: another block's, consumed a wave later, measured 2×
  /// slower.
  template <class Value, class Op>
  __device__ __forceinline__ void prefetch(const Value* in, const Op& op, int from, int to) const {
    for (int z = from; z < min(to, z_last); ++z) {
      const long long at = static_cast<long long>(z) * slice + segment;
      prefetch_l2(in + at, row_bytes);
      op.prefetch(at, row_bytes);
    }
  }
};

/// Slices a sweep's thread updates at once where their neighbours are all inside: two in single
/// precision in the lab frame on lattices of several cells an instance, so that each face's table
/// entry and weight serve two cells and a thread has twice the bytes in flight; one elsewhere.
/// Measured on the H100 (docs/gpu.md): the single leapfrog +6 to +13% on FCC, BCC, A15, C15 and
/// Z (about 3 points of it the machine's), but cubic's 6.8% slower; mixed's FP64 sums spill at two.
template <class Op, int MS, bool ROTATES>
constexpr int kSlicesAtOnce = MS > 1 && !ROTATES && std::is_same_v<typename Op::Real, float> &&
                                      sizeof(typename Op::Value) == 8
                                  ? 2
                                  : 1;

/// Updates cell i of global slice gz with its face sum: op(r) with r = M(ψ)ψ (APPLY_M) or the sum.
template <bool APPLY_M, class Frame, class Op, class Real>
__device__ __forceinline__ void update_cell(const DeviceGrid& g, const Frame& frame, const Op& op,
                                            int sx, int sy, int gz, int l, long long i,
                                            const typename Op::Early& early,
                                            BasicComplex<Real> psi_i, BasicComplex<Real> sum) {
  if constexpr (APPLY_M) {
    const double v = frame.potential(g, sx, sy, gz, l, i);
    op(i, early, psi_i, apply_m(psi_i, sum, static_cast<Real>(v), static_cast<Real>(g.g)));
  } else {
    op(i, early, psi_i, sum);
  }
}

/// A sweep thread's cell in its column: instance sx, local index l, index `own` in a slice.
struct ColumnCell {
  int sx, l, own;
};

/// The column's cells of the N slices from sz, none with a neighbour outside: every load of the N
/// first (op's early operands, ψ, the neighbours), then the N updates.
template <int N, int MS, int F, bool APPLY_M, class Loads, class Frame, class Op>
__device__ __forceinline__ void sweep_inner_slices(const DeviceGrid& g, const Frame& frame,
                                                   const typename Op::Value* in, const Op& op,
                                                   const SweepColumn& c, ColumnCell cell, int sz) {
  using Real = typename Op::Real;
  long long i[N];
  typename Op::Early early[N];
  BasicComplex<Real> psi[N], sum[N];
#pragma unroll
  for (int n = 0; n < N; ++n) {
    i[n] = static_cast<long long>(sz + n) * c.slice + cell.own;
    early[n] = op.early(i[n]); // issued first: independent of the face sum
    psi[n] = convert<Real>(Loads::at(in + i[n]));
  }
  inner_face_sums<MS, F, N, kTestsRowEnds<Op, F, Loads, Frame>, Loads>(g, frame, in, i, cell.l, psi,
                                                                       sum);
#pragma unroll
  for (int n = 0; n < N; ++n) {
    update_cell<APPLY_M>(g, frame, op, cell.sx, c.sy, sz + n + g.z_offset, cell.l, i[n], early[n],
                         psi[n], sum[n]);
  }
}

/// The column's cell of slice sz, its neighbours outside the domain read as zeros.
template <int MS, int F, bool APPLY_M, class Loads, class Frame, class Op>
__device__ __forceinline__ void
sweep_slice(const DeviceGrid& g, const Frame& frame, const typename Op::Value* in, const Op& op,
            const SweepColumn& c, ColumnCell cell, int sz, bool y_inner, bool xy_inner) {
  using Real = typename Op::Real;
  const long long i = static_cast<long long>(sz) * c.slice + cell.own;
  const int gz = sz + g.z_offset;
  const bool z_inner = gz > 0 && gz < g.global_z - 1;
  const typename Op::Early early = op.early(i); // issued first: independent of the face sum
  const BasicComplex<Real> psi_i = convert<Real>(Loads::at(in + i));
  const BasicComplex<Real> sum = sweep_face_sum<MS, F, kTestsRowEnds<Op, F, Loads, Frame>, Loads>(
      g, frame, in, i, cell.sx, c.sy, gz, cell.l, psi_i, xy_inner && z_inner, y_inner, z_inner);
  update_cell<APPLY_M>(g, frame, op, cell.sx, c.sy, gz, cell.l, i, early, psi_i, sum);
}

/// Whether op's sweep may give a thread two consecutive instances (Tiling::pairs): one cell an
/// instance (so the two are adjacent in memory), 8-byte values, the lab frame, read-only loads, and
/// an Op that loads and stores a pair (early_pair, store_pair: the leapfrog).
template <class Op, int MS, bool APPLY_M, bool ROTATES, class Loads>
constexpr bool kTakesPairs = MS == 1 && APPLY_M && !ROTATES && sizeof(typename Op::Value) == 8 &&
                             std::is_same_v<Loads, ReadOnlyLoads> && requires(const Op& op) {
  op.early_pair(0LL);
};

/// Cells i and i + 1 (i even, so the pair is one aligned 16-byte word) of slice sz, none with a
/// neighbour outside: a face whose offset is even finds both neighbours in one 16-byte load, an odd
/// one (±x) in two 8-byte loads. Each cell's face sum in the table's order, V and the update as
/// update_cell forms them: the bits of two single cells.
template <int F, class Op>
__device__ __forceinline__ void sweep_inner_pair(const DeviceGrid& g, const LabColumn (&frame)[2],
                                                 const typename Op::Value* in, const Op& op,
                                                 long long i, int gz) {
  using Real = typename Op::Real;
  using Value = typename Op::Value;
  const typename Op::EarlyPair early = op.early_pair(i); // issued first: independent of the sum
  Value own[2];
  load_pair_ro(in + i, own);
  const BasicComplex<Real> psi[2] = {convert<Real>(own[0]), convert<Real>(own[1])};
  BasicComplex<Real> sum[2] = {{0, 0}, {0, 0}};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const FaceWeight fw = face_weight(g, f);
    if (kTestsRowEnds<Op, F, ReadOnlyLoads, LabColumn> && fw.weight == 0.0) {
      break;
    }
    Value across[2];
    if ((fw.delta & 1) == 0) {
      load_pair_ro(in + i + fw.delta, across);
    } else {
      across[0] = load_ro(in + i + fw.delta);
      across[1] = load_ro(in + i + fw.delta + 1);
    }
#pragma unroll
    for (int n = 0; n < 2; ++n) {
      sum[n] = frame[n].add(sum[n], f, fw.slot, fw.weight, psi[n], convert<Real>(across[n]));
    }
  }
  BasicComplex<Real> m[2];
#pragma unroll
  for (int n = 0; n < 2; ++n) {
    const double v = frame[n].potential(g, 0, 0, gz, 0, i + n);
    m[n] = apply_m(psi[n], frame[n].total(sum[n], psi[n]), static_cast<Real>(v),
                   static_cast<Real>(g.g));
  }
  op.store_pair(i, early, m[0], m[1]);
}

/// The sweep of a block whose threads take two consecutive instances each (Tiling::pairs, where
/// kTakesPairs): 16-byte accesses of 8-byte values, a double's bytes in flight a load. Interior per
/// warp as in sweep_cells; a pair with a neighbour outside is updated as two single cells.
template <int F, class Op>
__device__ __forceinline__ void sweep_pairs(const DeviceGrid& g, const Tiling& t,
                                            const typename Op::Value* in, const Op& op, int block,
                                            int z_begin, int z_end) {
  const SweepColumn c = SweepColumn::of<1, sizeof(typename Op::Value)>(g, t, block, z_begin, z_end);
  if (threadIdx.x == 0) {
    c.prefetch(in, op, c.z_first + 1, c.z_first + t.ahead);
  }
  const int tx = 2 * static_cast<int>(threadIdx.x);
  const ColumnCell first{c.x0 + tx, 0, c.segment + tx}, second{first.sx + 1, 0, first.own + 1};
  const bool active = tx < t.tile && first.sx < g.sx; // Sx and the tile are even: second too
  const bool y_inner = c.sy > 0 && c.sy < g.sy - 1;
  const bool xy_inner =
      __all_sync(0xffffffffU, !active || (y_inner && first.sx > 0 && second.sx < g.sx - 1));
  if (!active) {
    return;
  }
  const LabColumn frame[2] = {LabColumn::at(g, first.sx, c.sy, 0),
                              LabColumn::at(g, second.sx, c.sy, 0)};
#pragma unroll 1
  for (int sz = c.z_first; sz < c.z_last; ++sz) {
    if (threadIdx.x == 0) {
      c.prefetch(in, op, sz + t.ahead, sz + t.ahead + 1);
    }
    const int gz = sz + g.z_offset;
    if (xy_inner && gz > 0 && gz < g.global_z - 1) {
      sweep_inner_pair<F>(g, frame, in, op, static_cast<long long>(sz) * c.slice + first.own, gz);
    } else {
      sweep_slice<1, F, true, ReadOnlyLoads>(g, frame[0], in, op, c, first, sz, y_inner, xy_inner);
      sweep_slice<1, F, true, ReadOnlyLoads>(g, frame[1], in, op, c, second, sz, y_inner, xy_inner);
    }
  }
}

/// Whether no neighbour of the thread's cells in this row leaves the domain in x or y (a face moves
/// at most one instance in x), decided per warp, so that only the warps of a row's first and last
/// instances test their faces, not every warp of a tile that touches a row's end. Every thread of
/// the warp calls it (`active`: it has a cell). Cubic in double keeps the tile's test: its leapfrog
/// ran 9.7% slower with the warp's on an H100 (6.7% faster on an H200; docs/gpu.md, "The interior
/// per warp").
template <int MS, int value_bytes>
__device__ __forceinline__ bool interior(const DeviceGrid& g, const Tiling& t, const SweepColumn& c,
                                         bool active, bool y_inner, int sx) {
  if constexpr (MS == 1 && value_bytes == 16) {
    return y_inner && c.x0 > 0 && c.x0 + t.tile < g.sx;
  } else {
    return __all_sync(0xffffffffU, !active || (y_inner && sx > 0 && sx < g.sx - 1));
  }
}

/// The sweep of block `block` over the slices [z_begin, z_end), in the lab frame or the rotating
/// one (ROTATES), in op's precision.
template <int MS, int F, bool APPLY_M, bool ROTATES, class Loads, class Op>
__device__ __forceinline__ void sweep_cells(const DeviceGrid& g, const Tiling& t,
                                            const typename Op::Value* in, const Op& op, int block,
                                            int z_begin, int z_end) {
  using Real = typename Op::Real;
  if constexpr (kTakesPairs<Op, MS, APPLY_M, ROTATES, Loads>) {
    if (t.pairs) {
      sweep_pairs<F>(g, t, in, op, block, z_begin, z_end);
      return;
    }
  }
  constexpr int N = kSlicesAtOnce<Op, MS, ROTATES>;
  const SweepColumn c =
      SweepColumn::of<MS, sizeof(typename Op::Value)>(g, t, block, z_begin, z_end);
  if (threadIdx.x == 0) {
    c.prefetch(in, op, c.z_first + 1, c.z_first + t.ahead);
  }
  int tx = 0, l = 0;
  sweep_cell<MS>(g, t, tx, l);
  const ColumnCell cell{c.x0 + tx, l, c.segment + tx * MS + l};
  const bool active = tx < t.tile && cell.sx < g.sx;
  const bool y_inner = c.sy > 0 && c.sy < g.sy - 1;
  const bool xy_inner = interior<MS, sizeof(typename Op::Value)>(g, t, c, active, y_inner, cell.sx);
  if (!active) {
    return;
  }
  const FrameOf<MS, F, ROTATES, Real> frame =
      FrameOf<MS, F, ROTATES, Real>::at(g, cell.sx, c.sy, l);
#pragma unroll 1
  for (int sz = c.z_first; sz < c.z_last;) {
    const int gz = sz + g.z_offset;
    const bool together = N > 1 && xy_inner && sz + N <= c.z_last && gz > 0 && gz + N < g.global_z;
    const int taken = together ? N : 1;
    if (threadIdx.x == 0) {
      c.prefetch(in, op, sz + t.ahead, sz + t.ahead + taken);
    }
    if constexpr (N > 1) {
      if (together) {
        sweep_inner_slices<N, MS, F, APPLY_M, Loads>(g, frame, in, op, c, cell, sz);
      }
    }
    if (!together) {
      sweep_slice<MS, F, APPLY_M, Loads>(g, frame, in, op, c, cell, sz, y_inner, xy_inner);
    }
    sz += taken;
  }
}

/// f(std::integral_constant<int, MIN_BLOCKS>{}) with t's register cap: the sweeping kernels are
/// instantiated at 3, 4 and 5 blocks an SM, the values parse_plain_shape takes.
template <class Fn> void with_min_blocks(const Tiling& t, Fn&& f) {
  if (t.min_blocks == 3) {
    f(std::integral_constant<int, 3>{});
  } else if (t.min_blocks == 5) {
    f(std::integral_constant<int, 5>{});
  } else {
    f(std::integral_constant<int, 4>{});
  }
}

template <int MS, int F, int MIN_BLOCKS, bool APPLY_M, bool ROTATES, class Op>
__global__ void __launch_bounds__(kSweepThreads, MIN_BLOCKS)
    sweep(DeviceGrid g, Tiling t, const typename Op::Value* __restrict__ in, Op op, int z_begin,
          int z_end) {
  sweep_cells<MS, F, APPLY_M, ROTATES, ReadOnlyLoads>(g, t, in, op, static_cast<int>(blockIdx.x),
                                                      z_begin, z_end);
}

/// Launches the sweep of `op` over [z_begin, z_end) with t's register cap, in g's frame.
template <int MS, int F, bool APPLY_M, class Op>
void launch_sweep(const Tiling& t, const DeviceGrid& g, const typename Op::Value* in, const Op& op,
                  int z_begin, int z_end, cudaStream_t stream) {
  const long long chunks = (z_end - z_begin + t.slices - 1) / t.slices;
  const auto blocks =
      static_cast<unsigned>(static_cast<long long>(t.tiles_per_row) * g.sy * chunks);
  if (blocks == 0) {
    return;
  }
  // a rotating frame's hops (RotatingFrame), at most F a thread: at most 48 KB
  using Frame = RotatingFrame<MS, F, typename Op::Real>;
  const std::size_t hop_bytes = g.omega != 0.0 ? sizeof(typename Frame::Hop) * kMaxStencilThreads *
                                                     static_cast<std::size_t>(Frame::kept(g))
                                               : 0;
  with_frame(g, [&](auto rotates) {
    with_min_blocks(t, [&](auto min_blocks) {
      sweep<MS, F, min_blocks, APPLY_M, rotates>
          <<<blocks, t.threads, hop_bytes, stream>>>(g, t, in, op, z_begin, z_end);
    });
  });
}

} // namespace decgpe::cuda
