// The leapfrog step of Algorithm 1: ψⁿ⁺¹ = ψⁿ⁻¹ − 2iΔt M(ψⁿ) ψⁿ, in place over ψⁿ⁻¹.
//
// sweep (the default, sweep.cuh): a block walks a tile of one y-row through a chunk of z-slices.
// staged (staged_sweep.cuh; the default on cubic, cubic4, BCC and FCC in single and mixed): a block
// walks a tile of several y-rows, each slice of ψ in shared memory.
// plain: a block is a tile of structure instances in ROWS consecutive y-rows, one slice; each
// thread owns one local index in one instance of each row, its ROWS cells share one stencil-table
// fetch per face and all their loads are in flight together. The sweep takes it where the grid has
// too few chunks to fill the GPU.
// wavefront: several steps in one launch, so that the levels between them are read back from L2
// instead of DRAM (below).
#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"
#include "solvers/cuda/staged_sweep.cuh"
#include "solvers/cuda/sweep.cuh"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace decgpe::cuda {

namespace {

constexpr int kSweepWaves = 4;      // the fewest waves of blocks a grid takes as a sweep
constexpr int kRotatingSlices = 16; // the fewest slices a default sweep walks in a rotating frame,
constexpr int kRotatingSlicesManyFaces = 32; // and where a cell has more than 8 faces (cubic4)

/// A plain block's thread's ROWS cells (y-rows sy0…, one slice): ψⁿ⁻¹ as stored and ψⁿ in Real
/// loaded, the face sums zeroed.
template <int ROWS, class Value, class Real>
__device__ __forceinline__ void
load_rows(const DeviceGrid& g, const Value* psi, const Value* out, long long i0,
          long long row_stride, int sy0, Value (&previous)[ROWS], BasicComplex<Real> (&psi_i)[ROWS],
          BasicComplex<Real> (&lap)[ROWS]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    lap[r] = {0, 0};
    if (sy0 + r < g.sy) {
      previous[r] = load(out + i0 + r * row_stride);
      psi_i[r] = convert<Real>(load_ro(psi + i0 + r * row_stride));
    }
  }
}

/// ψⁿ⁺¹ of the ROWS cells from their face sums, over ψⁿ⁻¹.
template <int ROWS, class Value, class Real>
__device__ __forceinline__ void
store_rows(const DeviceGrid& g, Value* out, long long i0, long long row_stride, int sx, int sy0,
           int gz, int l, const Value (&previous)[ROWS], const BasicComplex<Real> (&psi_i)[ROWS],
           const BasicComplex<Real> (&lap)[ROWS]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if (sy0 + r < g.sy) {
      const long long i = i0 + r * row_stride;
      const auto v = static_cast<Real>(potential_at_global(g, sx, sy0 + r, gz, l, i));
      store(out + i, step_along(convert<Real>(previous[r]), static_cast<Real>(g.two_dt),
                                apply_m(psi_i[r], lap[r], v, static_cast<Real>(g.g))));
    }
  }
}

template <class Types, int MS, int F, int ROWS, int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    step_plain(DeviceGrid g, Tiling t, const Stored<Types>* __restrict__ psi,
               Stored<Types>* __restrict__ out, int z_begin) {
  using Real = typename Types::Real;
  const int group = blockIdx.x / t.tiles_per_row;
  const int x0 = (blockIdx.x - group * t.tiles_per_row) * t.tile;
  const int slab = group / t.row_groups;
  const int sz = z_begin + slab;
  const int sy0 = (group - slab * t.row_groups) * ROWS;
  const int tx = threadIdx.x / MS;
  const int l = threadIdx.x - tx * MS;
  const int sx = x0 + tx;
  if (tx >= t.tile || sx >= g.sx) {
    return;
  }
  const long long row_stride = static_cast<long long>(g.sx) * MS;
  const long long i0 =
      (static_cast<long long>(sz) * g.sy + sy0) * row_stride + static_cast<long long>(sx) * MS + l;
  const int gz = sz + g.z_offset;
  const bool z_inner = gz > 0 && gz < g.global_z - 1;
  Stored<Types> previous[ROWS];
  BasicComplex<Real> psi_i[ROWS], lap[ROWS];
  load_rows<ROWS>(g, psi, out, i0, row_stride, sy0, previous, psi_i, lap);
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const Face fc = face(g, f * MS + l);
    if (fc.weight == 0.0) {
      continue;
    }
    const int nx = sx + fc.dx, nz = gz + fc.dz;
    const bool xz_in = nx >= 0 && nx < g.sx && (z_inner || (nz >= 0 && nz < g.global_z));
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int ny = sy0 + r + fc.dy;
      if (sy0 + r < g.sy) {
        const BasicComplex<Real> psi_j =
            xz_in && ny >= 0 && ny < g.sy
                ? convert<Real>(load_ro(psi + i0 + r * row_stride + fc.delta))
                : BasicComplex<Real>{0, 0};
        lap[r] = add_face(lap[r], static_cast<Real>(fc.weight), psi_i[r], psi_j);
      }
    }
  }
  store_rows<ROWS>(g, out, i0, row_stride, sx, sy0, gz, l, previous, psi_i, lap);
}

/// The leapfrog's update of a sweep's cell: ψⁿ⁻¹ (in `out`) is its early operand, kept as stored
/// (8 bytes in single and mixed) until the update widens it.
template <class Types> struct LeapfrogStep {
  using Value = Stored<Types>;
  using Real = typename Types::Real;
  /// No row-end test on the 4-face lattices (sweep.cuh, kTestsRowEnds) where the face sum is FP64:
  /// on an H200 at 64M DOFs double +1 to +3%, mixed +4 to +11%; single lost on BCC and A15.
  static constexpr bool kUntestedRowEnds = std::is_same_v<Real, double>;
  Value* out;
  double two_dt;
  struct Early {
    Value previous;
  };
  __device__ Early early(long long i) const { return {load(out + i)}; }
  __device__ void prefetch(long long at, unsigned bytes) const { prefetch_l2(out + at, bytes); }
  __device__ void operator()(long long i, Early e, BasicComplex<Real>, BasicComplex<Real> m) const {
    store(out + i, step_along(convert<Real>(e.previous), static_cast<Real>(two_dt), m));
  }
  /// Cells i and i + 1 of a sweep's pair (sweep.cuh, sweep_pairs; 8-byte values, i even): ψⁿ⁻¹ of
  /// both in one 16-byte load, ψⁿ⁺¹ of both in one store.
  struct EarlyPair {
    Value previous[2];
  };
  __device__ EarlyPair early_pair(long long i) const requires(sizeof(Value) == 8) {
    EarlyPair e;
    load_pair(out + i, e.previous);
    return e;
  }
  __device__ void store_pair(long long i, const EarlyPair& e, BasicComplex<Real> m0,
                             BasicComplex<Real> m1) const requires(sizeof(Value) == 8) {
    const auto two_dt_r = static_cast<Real>(two_dt);
    cuda::store_pair(out + i, step_along(convert<Real>(e.previous[0]), two_dt_r, m0),
                     step_along(convert<Real>(e.previous[1]), two_dt_r, m1));
  }
};

// Where the sweep takes two slices at once: single precision on lattices of several cells an
// instance (cubic4's 8, BCC's 12), not cubic's one, not double or mixed, not a rotating frame.
static_assert(kSlicesAtOnce<LeapfrogStep<SingleTypes>, 12, false> == 2);
static_assert(kSlicesAtOnce<LeapfrogStep<SingleTypes>, 1, false> == 1);
static_assert(kSlicesAtOnce<LeapfrogStep<SingleTypes>, 12, true> == 1);
static_assert(kSlicesAtOnce<LeapfrogStep<MixedTypes>, 12, false> == 1);
static_assert(kSlicesAtOnce<LeapfrogStep<DoubleTypes>, 12, false> == 1);

/// A relaxed load at GPU scope (no L1 invalidation per poll; the acquire is one fence after).
__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// Adds one with release semantics at GPU scope: the block's stores before it (past a barrier)
/// are seen by whoever acquires the count.
__device__ __forceinline__ void count_release(unsigned* p) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

/// Warp 0 of a wavefront block waits until the nine units around `unit` are done by the step
/// before (`before`: its counts), a lane a unit, so the nine polls cost one round trip to L2.
__device__ __forceinline__ void wait_for_units(const Wavefront& w, const unsigned* before, int unit,
                                               unsigned tiles) {
  const int lane = static_cast<int>(threadIdx.x);
  const int slab = unit / w.bands + lane / 3 - 1, band = unit % w.bands + lane % 3 - 1;
  const bool mine = lane < 9 && slab >= 0 && slab < w.slabs && band >= 0 && band < w.bands;
  const unsigned* count = before + (mine ? slab * w.bands + band : 0);
  while (!__all_sync(0xffffffffU, !mine || load_relaxed(count) >= tiles)) {
    __nanosleep(32);
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory"); // the acquire of the counts read
}

/// The wavefront: `w.steps` leapfrog steps in one launch. The domain is cut into units of
/// w.rows y-rows × w.slab z-slices, unit u = slab · bands + band; a ticket is one tile of x of a
/// unit for one step. Tickets are dealt in the order w.order gives (step j on unit u runs w's lag
/// of units behind step j − 1), a ticket a block at a time, so that a block only ever waits on
/// tickets dealt before its own, which blocks already running hold: no deadlock, whatever the
/// number of resident blocks. Step j on a unit reads step j − 1's level on the units around it
/// (slabs and bands ± 1) and overwrites the level step j − 1 read there, so it waits until those
/// nine are done. Each row of a ticket is walked through the slab as a sweep's block walks its
/// chunk, with the sweep's arithmetic: the launch is bitwise `steps` single steps.
template <int MS, int F, int MIN_BLOCKS>
__global__ void __launch_bounds__(kSweepThreads, MIN_BLOCKS)
    leapfrog_wavefront(DeviceGrid g, Tiling t, Complex* older, Complex* newer, Wavefront w) {
  __shared__ unsigned dealt;
  const int units = w.slabs * w.bands;
  const auto tiles = static_cast<unsigned>(t.tiles_per_row);
  const unsigned total = static_cast<unsigned>(w.steps * units) * tiles;
  unsigned* const done = w.counters + 1;
  // The next ticket is asked for while the current one runs (its round trip hidden): a block
  // holding one it has not started still only waits on earlier tickets.
  unsigned next = threadIdx.x == 0 ? atomicAdd(w.counters, 1U) : 0U;
  while (true) {
    if (threadIdx.x < 32) {
      const unsigned ticket = __shfl_sync(0xffffffffU, next, 0);
      if (ticket < total) {
        const int2 stage = w.order[ticket / tiles];
        if (stage.x > 0) {
          wait_for_units(w, done + (stage.x - 1) * units, stage.y, tiles);
        }
      }
      if (threadIdx.x == 0) {
        dealt = ticket;
        next = ticket < total ? atomicAdd(w.counters, 1U) : total;
      }
    }
    __syncthreads();
    const unsigned ticket = dealt;
    if (ticket >= total) {
      return;
    }
    const int2 stage = w.order[ticket / tiles];
    const bool even = stage.x % 2 == 0; // even steps write the older level, odd ones the newer
    const int slab = stage.y / w.bands;
    const int z_begin = slab * w.slab, z_end = min(z_begin + w.slab, g.sz);
    const int first_row = (stage.y - slab * w.bands) * w.rows;
    const int tile = static_cast<int>(ticket % tiles);
    for (int sy = first_row; sy < min(first_row + w.rows, g.sy); ++sy) {
      sweep_cells<MS, F, true, false, CoherentLoads>(
          g, t, even ? newer : older, LeapfrogStep<DoubleTypes>{even ? older : newer, g.two_dt},
          sy * t.tiles_per_row + tile, z_begin, z_end);
    }
    __syncthreads(); // every store of the ticket is made; then released with the count
    if (threadIdx.x == 0) {
      count_release(done + stage.x * units + stage.y);
    }
  }
}

} // namespace

namespace {

/// The 1 to 3 digits of a sweep setting at text[at], `at` moved past them; −1 for none or more.
int setting_value(const std::string& text, std::size_t& at) {
  std::size_t end = at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
    ++end;
  }
  if (end == at || end - at > 3) {
    return -1;
  }
  const int value = std::stoi(text.substr(at, end - at));
  at = end;
  return value;
}

/// Sets the sweep's setting `key` (z slices, a ahead, b blocks per SM); false for another key or a
/// value out of its range.
bool set_sweep_setting(PlainShape& out, char key, int value) {
  if (key == 'z' && value >= 1 && value <= 256) {
    out.slices = value;
  } else if (key == 'a' && value >= 0 && value <= 8) {
    out.ahead = value;
  } else if (key == 'b' && (value >= 3 && value <= 5)) {
    out.min_blocks = value;
  } else {
    return false;
  }
  return true;
}

/// The staged sweep's "t<tile x>x<rows>z<slices>a<ahead>b<blocks>" (every key, in order).
PlainShape parse_staged_shape(const std::string& text) {
  PlainShape out{1, kSweepThreads};
  out.staged = true;
  const auto refuse = [&] {
    return std::invalid_argument(
        "the staged sweep's shape must be t<tile x, 1-256>x<rows, 1-64>z<slices, 1-256>"
        "a<ahead, 0-8>b<blocks an SM, 4, 6 or 8>, got '" +
        text + "'");
  };
  std::size_t at = 0;
  for (const char key : std::string_view("txzab")) {
    if (at >= text.size() || text[at++] != key) {
      throw refuse();
    }
    const int value = setting_value(text, at);
    const bool fits =
        (key == 't' && value >= 1 && value <= 256) || (key == 'x' && value >= 1 && value <= 64) ||
        (key == 'z' && value >= 1 && value <= 256) || (key == 'a' && value >= 0 && value <= 8) ||
        (key == 'b' && (value == 4 || value == 6 || value == 8));
    if (!fits) {
      throw refuse();
    }
    int& field = key == 't'   ? out.tile_x
                 : key == 'x' ? out.rows
                 : key == 'z' ? out.slices
                 : key == 'a' ? out.ahead
                              : out.min_blocks;
    field = value;
  }
  if (at != text.size()) {
    throw refuse();
  }
  return out;
}

} // namespace

PlainShape parse_plain_shape(std::string_view shape) {
  if (!shape.empty() && shape.front() == 't') {
    return parse_staged_shape(std::string(shape.substr(0, 32)));
  }
  if (shape == "1x512") {
    return {1, 512};
  }
  if (shape == "1x256") {
    return {1, 256};
  }
  if (shape == "2x256") {
    return {2, 256};
  }
  if (shape == "sweep") { // the default: measured fastest on every lattice (docs/gpu.md)
    PlainShape chosen = parse_plain_shape("1x256z8a2b4f");
    chosen.fits_grid = true;
    return chosen;
  }
  // 1x256 followed by the sweep's settings: z<slices>, a<ahead>, b<blocks per SM>, f, p.
  const std::string text(shape.substr(0, 32));
  const auto refuse = [&] {
    return std::invalid_argument("the plain kernel's block shape must be 1x512, 1x256, 2x256 or "
                                 "1x256 with sweep settings (z<slices>a<ahead>b<blocks>f), "
                                 "got '" +
                                 text + "'");
  };
  if (text.rfind("1x256", 0) != 0 || text.size() == 5) {
    throw refuse();
  }
  PlainShape out{1, 256};
  out.sweep = true;
  for (std::size_t at = 5; at < text.size();) {
    const char key = text[at++];
    if (key == 'f') {
      out.by_faces = true;
    } else if (key == 'p') {
      out.pairs = true;
    } else if (!set_sweep_setting(out, key, setting_value(text, at))) {
      throw refuse();
    }
  }
  return out;
}

namespace {

/// Blocks of whole structure instances, so a block's cells are contiguous in memory, a thread
/// taking `per_thread` consecutive instances (a tile a multiple of it). Tiles of a row are balanced
/// (87 instances become 29 + 29 + 29, not 42 + 42 + 3).
Tiling row_tiles(const DeviceGrid& g, const PlainShape& shape, int per_thread) {
  const int longest = std::max(per_thread, std::min(shape.threads * per_thread / g.ms, g.sx));
  const int tiles_per_row = (g.sx + longest - 1) / longest;
  const int tile =
      ((g.sx + tiles_per_row - 1) / tiles_per_row + per_thread - 1) / per_thread * per_thread;
  return {tile, (tile / per_thread * g.ms + 31) / 32 * 32, tiles_per_row, shape.rows,
          (g.sy + shape.rows - 1) / shape.rows};
}

/// Whether the tiles t walking `shape.slices` slices at a time, `shape.min_blocks` blocks an SM,
/// make kSweepWaves waves of blocks on `sms` multiprocessors.
bool fills_waves(const Tiling& t, const DeviceGrid& g, const PlainShape& shape, int sms) {
  const long long chunks = (g.sz + shape.slices - 1) / shape.slices;
  const long long blocks = static_cast<long long>(t.tiles_per_row) * t.row_groups * chunks;
  return blocks / (static_cast<long long>(sms) * shape.min_blocks) >= kSweepWaves;
}

/// The staged sweep's tiling: a row of the tile a thread a cell, as many rows at once as 256
/// threads hold, and a thread 1, 2 or 4 rows (with_staged_rows).
Tiling staged_tiles(const DeviceGrid& g, const PlainShape& shape) {
  const int tile = std::min(shape.tile_x, g.sx), rows = std::min(shape.rows, g.sy);
  const int width = tile * g.ms;
  const int at_once = width <= kSweepThreads ? std::min(rows, kSweepThreads / width) : 0;
  if (at_once == 0 || (rows + at_once - 1) / at_once > 4) {
    throw std::invalid_argument("the staged sweep's tile of " + std::to_string(tile) + " x " +
                                std::to_string(rows) + " instances of " + std::to_string(g.ms) +
                                " cells takes more than 256 threads a row or 4 rows a thread");
  }
  Tiling t{tile, width * at_once, (g.sx + tile - 1) / tile, rows, (g.sy + rows - 1) / rows};
  t.staged = true;
  t.slices = shape.slices;
  t.ahead = shape.ahead;
  t.min_blocks = shape.min_blocks;
  return t;
}

} // namespace

std::string staged_unfit(const Tiling& t, const DeviceGrid& g, int value_bytes) {
  const int unit = 16 / value_bytes;
  std::string why;
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    const int cells = StagedShape<ms>::of(t).cells;
    if ((g.sx * ms) % unit != 0 || (t.tile * ms) % unit != 0 ||
        cells / unit > kStagedCopies * t.threads) {
      why = "the staged sweep " + describe(t) + " does not fit Sx = " + std::to_string(g.sx) +
            ": rows of 8-byte values must hold whole 16-byte words (an even number of cells in "
            "the row and the tile), and a thread makes at most " +
            std::to_string(kStagedCopies) + " copies a slice";
    }
  });
  return why;
}

Tiling make_tiling(const DeviceGrid& g, PlainShape shape, int sms) {
  if (shape.staged) {
    return staged_tiles(g, shape);
  }
  // A rotating frame's thread computes its cell's hops (F cos_sin) once per sweep: the default
  // shapes walk 16 slices there, 32 on cubic4 (the leapfrog at Omega = 0.5, 64M DOFs, H100, G/s
  // for 8, 16, 32 slices: FCC 40.0, 41.5, 39.7; cubic4 30.9, 33.7, 34.5).
  if (g.omega != 0.0 && shape.fits_grid) {
    shape.slices =
        std::max(shape.slices, g.max_faces > 8 ? kRotatingSlicesManyFaces : kRotatingSlices);
  }
  Tiling t = row_tiles(g, shape, 1);
  // A sweep needs blocks for several waves; a small grid (1M DOFs) has too few, so "sweep" takes
  // one slice a block there (cubic and Z at 1M DOFs: 14% and 21% slower as a sweep on the H100).
  // Sweep settings given in full are taken as they are.
  if (shape.sweep && (!shape.fits_grid || fills_waves(t, g, shape, sms))) {
    t.sweep = true;
    t.slices = shape.slices;
    t.ahead = shape.ahead;
    t.min_blocks = shape.min_blocks;
    t.by_faces = shape.by_faces && g.wide_cells < g.ms;
    // Pairs of instances where one is a cell and a row holds whole pairs (16-byte aligned).
    if (shape.pairs && g.ms == 1 && g.sx % 2 == 0) {
      const Tiling paired = row_tiles(g, shape, 2);
      t.tile = paired.tile;
      t.threads = paired.threads;
      t.tiles_per_row = paired.tiles_per_row;
      t.pairs = true;
    }
  }
  return t;
}

PlainShape leapfrog_shape(PlainShape shape, Precision precision, bool rotates) {
  // A thread takes two consecutive instances on a lattice of one cell an instance (Tiling::pairs):
  // 16-byte accesses of 8-byte values, as a double's. On an H200 at 64M DOFs cubic's leapfrog ran
  // +18% in single and +8% in mixed against the sweep of that time (docs/gpu.md, "The interior
  // per warp, and pairs of instances on cubic"). FP64 values are 16 bytes already.
  shape.pairs = precision != Precision::double_ && !rotates && (shape.fits_grid || shape.pairs);
  // In single and mixed precision the lab frame's leapfrog sweep holds 8-byte values, and five
  // blocks an SM (48 registers, spilling at most 12 B) hide more of its load latency than four:
  // on the H200 at 64M DOFs single +1 to +5% on five crystals and +7% on cubic4 (cubic -1%),
  // mixed +6 to +8%; double lost 1-3% (docs/gpu.md, "Five blocks an SM"). The rotating frame's
  // sweeps sit at 64. A grid then needs 25% more blocks for kSweepWaves waves (make_tiling).
  if (shape.fits_grid && precision != Precision::double_ && !rotates) {
    shape.min_blocks = 5;
  }
  return shape;
}

namespace {

/// The staged sweep "sweep" gives the lab frame's leapfrog where it measured faster than the sweep,
/// empty elsewhere (an H100, 64M DOFs, medians of 5, each against the sweep in one call;
/// docs/gpu.md, "The staged sweep"): cubic single +14 to +17% and mixed +27%, cubic4 single +17%
/// and mixed +25%; since its ring is sized to the grown slice, BCC single +12% and mixed +12%
/// (t4x8), FCC single +16% and mixed +13% (t4x8). It lost on cubic in double (-1.4%).
std::string_view staged_default(std::string_view lattice, Precision precision) {
  if (precision == Precision::double_) {
    return {};
  }
  if (lattice == "cubic") {
    return "t64x8z32a0b4";
  }
  if (lattice == "bcc" || lattice == "fcc") { // a thread 4 rows in single, 2 in mixed
    return precision == Precision::single ? "t8x8z32a0b4" : "t4x8z32a0b4";
  }
  return lattice == "cubic4" ? "t8x8z32a0b4" : "";
}

} // namespace

Tiling make_leapfrog_tiling(const DeviceGrid& g, const PlainShape& shape, Precision precision,
                            std::string_view lattice, int sms) {
  const bool rotates = g.omega != 0.0;
  const int bytes = value_bytes(precision);
  if (shape.staged && !rotates) { // given in full: as it is, or refused
    const Tiling t = staged_tiles(g, shape);
    if (const std::string why = staged_unfit(t, g, bytes); !why.empty()) {
      throw std::invalid_argument(why);
    }
    return t;
  }
  // "sweep": the staged sweep where it measured faster and the grid fills kSweepWaves waves of
  // its blocks with rows of whole 16-byte words; the sweep elsewhere.
  if (const std::string_view staged = staged_default(lattice, precision);
      shape.fits_grid && !rotates && !staged.empty()) {
    const PlainShape tiles = parse_plain_shape(staged);
    const Tiling t = staged_tiles(g, tiles);
    if (staged_unfit(t, g, bytes).empty() && fills_waves(t, g, tiles, sms)) {
      return t;
    }
  }
  return make_tiling(g, leapfrog_shape(shape, precision, rotates), sms);
}

PlainShape passes_shape(std::string_view lattice, bool rotates) {
  // These passes stream 64–80 B a cell through four or five vectors where the leapfrog streams 48
  // through three: chunks of 4 slices, one ahead, measured best at 64M DOFs on the H100
  // (reports/data/nvidia-h100-80gb-hbm3/kernel-study/shapes-schemes.json: 85–93% of the copy rate);
  // Z's chunks of 8 without prefetch. Cubic's and cubic4's stream fastest one slice a block (as
  // sweeps: 3.5–5% slower, same machine and call).
  if (!rotates && (lattice == "cubic" || lattice == "cubic4")) {
    return parse_plain_shape("1x256");
  }
  PlainShape shape = parse_plain_shape(lattice == "z" ? "1x256z8a0b4f" : "1x256z4a1b4f");
  shape.fits_grid = true;
  return shape;
}

Tiling make_passes_tiling(const DeviceGrid& g, PlainShape shape, std::string_view lattice,
                          int sms) {
  shape.pairs = false; // the leapfrog's alone (kTakesPairs), as is the staged sweep
  if (shape.staged) {
    shape = parse_plain_shape("sweep");
  }
  const Tiling t =
      make_tiling(g, shape.fits_grid ? passes_shape(lattice, g.omega != 0.0) : shape, sms);
  return t.sweep ? t : make_cell_tiling(g);
}

std::string describe(const Tiling& t) {
  if (t.staged) {
    std::string text = "t";
    text += std::to_string(t.tile) + "x" + std::to_string(t.rows) + "z" + std::to_string(t.slices) +
            "a" + std::to_string(t.ahead) + "b" + std::to_string(t.min_blocks);
    return text;
  }
  if (!t.sweep) {
    return "one slice a block";
  }
  return "1x256z" + std::to_string(t.slices) + "a" + std::to_string(t.ahead) + "b" +
         std::to_string(t.min_blocks) + (t.by_faces ? "f" : "") + (t.pairs ? "p" : "");
}

std::vector<int> keyed_values(std::string_view text, std::string_view keys, int digits) {
  std::vector<int> values;
  std::size_t at = 0;
  for (const char key : keys) {
    if (at >= text.size() || text[at] != key) {
      return {};
    }
    std::size_t end = ++at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
      ++end;
    }
    if (end == at || end - at > static_cast<std::size_t>(digits)) {
      return {};
    }
    values.push_back(std::stoi(std::string(text.substr(at, end - at))));
    if (values.back() < 1) {
      return {};
    }
    at = end;
  }
  return at == text.size() ? values : std::vector<int>{};
}

WavefrontShape parse_wavefront(std::string_view text) {
  // s<slab>l<lag>r<rows>b<blocks per SM>, each 1-99: for tuning a new GPU (docs/gpu.md).
  const std::vector<int> v = keyed_values(text, "slrb", 2);
  if (v.empty()) {
    throw std::invalid_argument("the wavefront's shape must be s<slab slices>l<lag in slabs>"
                                "r<y-rows a ticket>b<blocks per SM>, each 1-99, got '" +
                                std::string(text.substr(0, 32)) + "'");
  }
  return {v[0], v[1], v[2], v[3]};
}

std::vector<int2> wavefront_order(int steps, int slabs, int bands, int lag) {
  // Step j − 1's last dependency of unit u is u + bands + 1 (the next slab's next band): a lag of
  // lag · bands + 1 units deals it first.
  const int units = slabs * bands, behind = lag * bands + 1;
  std::vector<int2> order;
  for (int front = 0; static_cast<int>(order.size()) < steps * units; ++front) {
    for (int j = 0; j < steps; ++j) {
      const int u = front - behind * j;
      if (u >= 0 && u < units) {
        order.push_back(make_int2(j, u));
      }
    }
  }
  return order;
}

/// Calls f(kernel) with the wavefront kernel of g's lattice and t's register cap.
template <class F> void with_wavefront_kernel(const Tiling& t, const DeviceGrid& g, F&& f) {
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    with_min_blocks(t, [&](auto min_blocks) { f(leapfrog_wavefront<ms, faces, min_blocks>); });
  });
}

int wavefront_blocks(const Tiling& t, const DeviceGrid& g, const Wavefront& w, int per_sm,
                     int sms) {
  int resident = 0;
  with_wavefront_kernel(t, g, [&](auto kernel) {
    DECGPE_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, t.threads, 0));
  });
  // Fewer blocks than fit keep fewer tickets in flight: step j + 1 then waits less far behind.
  const long long tickets = static_cast<long long>(w.steps) * w.slabs * w.bands * t.tiles_per_row;
  return static_cast<int>(
      std::min<long long>(tickets, static_cast<long long>(std::clamp(resident, 1, per_sm)) * sms));
}

void launch_leapfrog_wavefront(const Tiling& t, const DeviceGrid& g, const Wavefront& w,
                               Complex* older, Complex* newer, cudaStream_t stream) {
  const std::size_t units = static_cast<std::size_t>(w.slabs) * w.bands;
  DECGPE_CUDA_CHECK(
      cudaMemsetAsync(w.counters, 0, sizeof(unsigned) * (1 + w.steps * units), stream));
  with_wavefront_kernel(t, g, [&](auto kernel) {
    kernel<<<static_cast<unsigned>(w.blocks), t.threads, 0, stream>>>(g, t, older, newer, w);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

template <class Types>
void launch_step(const Tiling& t, const DeviceGrid& g, const Stored<Types>* psi, Stored<Types>* out,
                 int z_begin, int z_end, cudaStream_t stream) {
  if (z_end <= z_begin) {
    return;
  }
  const auto grid = static_cast<unsigned>(static_cast<long long>(t.tiles_per_row) * t.row_groups *
                                          (z_end - z_begin));
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if (t.staged && g.omega == 0.0) {
      launch_staged<ms, faces>(t, g, psi, LeapfrogStep<Types>{out, g.two_dt}, z_begin, z_end,
                               stream);
    } else if (t.sweep || g.omega != 0.0) { // the rotating frame's step is the sweep's alone
      launch_sweep<ms, faces, true>(t, g, psi, LeapfrogStep<Types>{out, g.two_dt}, z_begin, z_end,
                                    stream);
    } else if (t.rows == 2) {
      step_plain<Types, ms, faces, 2, 256, 4>
          <<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    } else if (t.threads <= 256) {
      // 8 blocks of 256: the full 64 warps of an SM, at most 32 registers a thread.
      step_plain<Types, ms, faces, 1, 256, 8>
          <<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    } else {
      step_plain<Types, ms, faces, 1, 512, 1>
          <<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    }
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

#define DECGPE_INSTANTIATE(Types)                                                                  \
  template void launch_step<Types>(const Tiling&, const DeviceGrid&, const Stored<Types>*,         \
                                   Stored<Types>*, int, int, cudaStream_t);
DECGPE_FOR_EACH_PRECISION(DECGPE_INSTANTIATE)
#undef DECGPE_INSTANTIATE

} // namespace decgpe::cuda
