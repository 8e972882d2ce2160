// The step kernel of Algorithm 1, in two variants that differ in where neighbours are read from.
//
// plain: a block is a tile of structure instances in ROWS consecutive y-rows; each thread owns one
// local index in one instance of each row. Its ROWS cells share one stencil-table fetch per face,
// all their loads are in flight together (the step is latency-bound at one cell per thread: ncu
// showed 46 B of DRAM traffic per update, at the 48 B floor, but only 65% of DRAM bandwidth), and a
// dy = ±1 neighbour is often a cell the block has just loaded. shared: one row's tile plus its x
// halo is staged in shared memory (the paper's §4.1 scheme).

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

#include <cctype>
#include <cstdlib>
#include <string>

namespace decgpe::cuda {

namespace {

constexpr int kMaxThreads = 544; // C15's 4 instances × 136 cells
constexpr int kSweepWaves = 4;   // the fewest waves of blocks a grid takes as a sweep

template <int MS, int F, int ROWS, int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    step_plain(DeviceGrid g, Tiling t, const Complex* __restrict__ psi, Complex* __restrict__ out,
               int z_begin) {
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
  Complex previous[ROWS], psi_i[ROWS], lap[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    lap[r] = {0.0, 0.0};
    if (sy0 + r < g.sy) {
      previous[r] = load(out + i0 + r * row_stride);
      psi_i[r] = load_ro(psi + i0 + r * row_stride);
    }
  }
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
        const Complex psi_j = xz_in && ny >= 0 && ny < g.sy
                                  ? load_ro(psi + i0 + r * row_stride + fc.delta)
                                  : Complex{0.0, 0.0};
        lap[r] = add_face(lap[r], fc.weight, psi_i[r], psi_j);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if (sy0 + r < g.sy) {
      const long long i = i0 + r * row_stride;
      const double v = potential_at_global(g, sx, sy0 + r, gz, l, i);
      store(out + i, step_along(previous[r], g.two_dt, apply_m(psi_i[r], lap[r], v, g.g)));
    }
  }
}

/// Asks the bulk-copy engine to bring `bytes` from global memory into L2: one instruction, no
/// registers or warps held while the bytes are in flight.
__device__ __forceinline__ void prefetch_l2(const Complex* p, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}

/// Prefetches the slices [from, to) of the tile's row of ψⁿ and ψⁿ⁻¹ that lie in the block's chunk
/// (prefetching for another block's chunk, consumed a wave later, measured 2× slower).
__device__ __forceinline__ void prefetch_ahead(const Complex* psi, const Complex* out,
                                               const Tiling& t, const DeviceGrid& g, int segment,
                                               int from, int to, int z_last) {
  const int limit = min(to, z_last);
  const unsigned bytes = min(t.tile, g.sx - (segment / g.ms) % g.sx) * g.ms * sizeof(Complex);
  for (int z = from; z < limit; ++z) {
    const long long at = static_cast<long long>(z) * g.sy * g.sx * g.ms + segment;
    prefetch_l2(psi + at, bytes);
    prefetch_l2(out + at, bytes);
  }
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

/// sweep: a block is a tile of one y-row that walks t.slices consecutive z-slices, so the row it
/// just did (z − 1) and the one it does next (z + 1) are met again in L1; with t.ahead its first
/// thread prefetches the tile's rows that many slices ahead into L2. Interior tiles sum their faces
/// without the boundary tests. MIN_BLOCKS sets the register cap: with 64 registers a thread has
/// all its loads in flight at once.
template <int MS, int F, int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    step_sweep(DeviceGrid g, Tiling t, const Complex* __restrict__ psi, Complex* __restrict__ out,
               int z_begin, int z_end) {
  const int column = blockIdx.x / t.tiles_per_row; // (sy, chunk of slices)
  const int x0 = (blockIdx.x - column * t.tiles_per_row) * t.tile;
  const int chunk = column / g.sy;
  const int sy = column - chunk * g.sy;
  const int z_first = z_begin + chunk * t.slices;
  const int z_last = min(z_first + t.slices, z_end);
  // Offsets within a slice are ints (the backend refuses grids where they would not be): fewer
  // registers live across the loop.
  const int slice = g.sy * g.sx * MS;
  const int segment = sy * g.sx * MS + x0 * MS; // the tile's first cell within a slice
  if (threadIdx.x == 0) {
    prefetch_ahead(psi, out, t, g, segment, z_first + 1, z_first + t.ahead, z_last);
  }
  int tx = 0, l = 0;
  sweep_cell<MS>(g, t, tx, l);
  const int sx = x0 + tx;
  if (tx >= t.tile || sx >= g.sx) {
    return;
  }
  const bool y_inner = sy > 0 && sy < g.sy - 1;
  // No neighbour of the tile leaves the domain across x or y: the face loop skips the tests.
  const bool xy_inner = y_inner && x0 > 0 && x0 + t.tile < g.sx;
  const int own = segment + tx * MS + l;
#pragma unroll 1
  for (int sz = z_first; sz < z_last; ++sz) {
    if (threadIdx.x == 0) {
      prefetch_ahead(psi, out, t, g, segment, sz + t.ahead, sz + t.ahead + 1, z_last);
    }
    const long long i = static_cast<long long>(sz) * slice + own;
    const int gz = sz + g.z_offset;
    const bool z_inner = gz > 0 && gz < g.global_z - 1;
    const Complex previous = load(out + i);
    const Complex psi_i = load_ro(psi + i);
    Complex lap{0.0, 0.0};
    if (xy_inner && z_inner) {
#pragma unroll
      for (int f = 0; f < F; ++f) {
        const FaceWeight fw = face_weight(g, f * MS + l);
        if (fw.weight == 0.0) {
          break; // padding comes last in a row
        }
        lap = add_face(lap, fw.weight, psi_i, load_ro(psi + i + fw.delta));
      }
    } else {
#pragma unroll
      for (int f = 0; f < F; ++f) {
        const Face fc = face(g, f * MS + l);
        if (fc.weight == 0.0) {
          break;
        }
        const int nx = sx + fc.dx, ny = sy + fc.dy, nz = gz + fc.dz;
        const bool in = nx >= 0 && nx < g.sx && (y_inner || (ny >= 0 && ny < g.sy)) &&
                        (z_inner || (nz >= 0 && nz < g.global_z));
        lap = add_face(lap, fc.weight, psi_i, in ? load_ro(psi + i + fc.delta) : Complex{0.0, 0.0});
      }
    }
    const double v = potential_at_global(g, sx, sy, gz, l, i);
    store(out + i, step_along(previous, g.two_dt, apply_m(psi_i, lap, v, g.g)));
  }
}

template <int MS, int F>
__global__ void __launch_bounds__(kMaxThreads)
    step_shared(DeviceGrid g, Tiling t, const Complex* __restrict__ psi, Complex* __restrict__ out,
                int z_begin) {
  // ψⁿ of instances x0 − 1 … x0 + tile of this row (the x halo included).
  extern __shared__ double2 staged[];
  const int row = blockIdx.x / t.tiles_per_row;
  const int x0 = (blockIdx.x - row * t.tiles_per_row) * t.tile;
  const int sy = row % g.sy;
  const int sz = z_begin + row / g.sy;
  const long long row_base = (static_cast<long long>(sz) * g.sy + sy) * g.sx * MS;
  const bool inner_row =
      sy > 0 && sy < g.sy - 1 && sz + g.z_offset > 0 && sz + g.z_offset < g.global_z - 1;
  {
    const int first = max(x0 - 1, 0);
    const int last = min(x0 + t.tile + 1, g.sx);
    const double2* src = reinterpret_cast<const double2*>(psi + row_base) + first * MS;
    double2* dst = staged + (first - (x0 - 1)) * MS;
    for (int k = threadIdx.x; k < (last - first) * MS; k += blockDim.x) {
      dst[k] = __ldg(src + k);
    }
    __syncthreads();
  }
  const int local = threadIdx.x;
  const int tx = local / MS;
  const int l = local - tx * MS;
  const int sx = x0 + tx;
  if (tx >= t.tile || sx >= g.sx) {
    return;
  }
  const long long i = row_base + static_cast<long long>(sx) * MS + l;
  const Complex previous = load(out + i); // issued first: independent of everything below
  const Complex psi_i{staged[(tx + 1) * MS + l].x, staged[(tx + 1) * MS + l].y};
  Complex lap{0.0, 0.0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const Face fc = face(g, f * MS + l);
    if (fc.weight == 0.0) {
      continue;
    }
    Complex psi_j{0.0, 0.0};
    if (inside(g, fc, sx, sy, sz, inner_row)) {
      if (fc.dy == 0 && fc.dz == 0) {
        const double2 v = staged[(tx + 1 + fc.dx) * MS + fc.local];
        psi_j = {v.x, v.y};
      } else {
        psi_j = load_ro(psi + i + fc.delta);
      }
    }
    lap = add_face(lap, fc.weight, psi_i, psi_j);
  }
  const double v = potential_at(g, sx, sy, sz, l, i);
  store(out + i, step_along(previous, g.two_dt, apply_m(psi_i, lap, v, g.g)));
}

} // namespace

PlainShape parse_plain_shape(std::string_view shape) {
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
  // 1x256 followed by the sweep's settings: z<slices>, a<ahead>, b<blocks per SM>, f.
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
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) {
      ++end;
    }
    if (end == at || end - at > 3) {
      throw refuse();
    }
    const int value = std::stoi(text.substr(at, end - at));
    at = end;
    if (key == 'z' && value >= 1 && value <= 256) {
      out.slices = value;
    } else if (key == 'a' && value <= 8) {
      out.ahead = value;
    } else if (key == 'b' && (value == 3 || value == 4)) {
      out.min_blocks = value;
    } else {
      throw refuse();
    }
  }
  return out;
}

Tiling make_tiling(StepVariant variant, const DeviceGrid& g, PlainShape shape, int sms) {
  // About 512 threads a block of whole structure instances, so a block's cells are contiguous in
  // memory; the shared variant's halo costs two instances a tile, so it takes the longest tile that
  // fits. Tiles of a row are balanced (87 instances become 29 + 29 + 29, not 42 + 42 + 3).
  const int per_block = variant == StepVariant::shared ? kMaxThreads : shape.threads;
  const int longest = std::max(1, std::min(per_block / g.ms, g.sx));
  const int tiles_per_row = (g.sx + longest - 1) / longest;
  const int tile = (g.sx + tiles_per_row - 1) / tiles_per_row;
  const int rows = variant == StepVariant::shared ? 1 : shape.rows;
  Tiling t{tile, (tile * g.ms + 31) / 32 * 32, tiles_per_row, rows, (g.sy + rows - 1) / rows};
  // A sweep needs blocks for several waves; a small grid (1M DOFs) has too few, so "sweep" takes
  // one slice a block there (cubic and Z at 1M DOFs: 14% and 21% slower as a sweep on the H100).
  // Sweep settings given in full are taken as they are.
  const long long chunks = (g.sz + shape.slices - 1) / shape.slices;
  const long long sweep_blocks = static_cast<long long>(tiles_per_row) * t.row_groups * chunks;
  const long long waves = sweep_blocks / (static_cast<long long>(sms) * shape.min_blocks);
  if (variant == StepVariant::plain && shape.sweep && (!shape.fits_grid || waves >= kSweepWaves)) {
    t.sweep = true;
    t.slices = shape.slices;
    t.ahead = shape.ahead;
    t.min_blocks = shape.min_blocks;
    t.by_faces = shape.by_faces && g.wide_cells < g.ms;
  }
  return t;
}

namespace {

template <int MS, int F>
void launch_sweep(const Tiling& t, const DeviceGrid& g, const Complex* psi, Complex* out,
                  int z_begin, int z_end, unsigned grid, cudaStream_t stream) {
  const auto run = [&](auto kernel) {
    kernel<<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin, z_end);
  };
  if (t.min_blocks == 3) {
    run(step_sweep<MS, F, 256, 3>);
  } else {
    run(step_sweep<MS, F, 256, 4>);
  }
}

} // namespace

void launch_step(StepVariant variant, const Tiling& t, const DeviceGrid& g, const Complex* psi,
                 Complex* out, int z_begin, int z_end, cudaStream_t stream) {
  const long long chunks = (z_end - z_begin + t.slices - 1) / t.slices;
  const long long blocks = static_cast<long long>(t.tiles_per_row) * t.row_groups * chunks;
  if (blocks <= 0) {
    return;
  }
  const auto grid = static_cast<unsigned>(blocks);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if (variant == StepVariant::shared) {
      // At most (544 + 2 · 136) · 16 B = 13 KB: within the default 48 KB, no opt-in needed.
      const std::size_t bytes = static_cast<std::size_t>(t.tile + 2) * ms * sizeof(double2);
      step_shared<ms, faces><<<grid, t.threads, bytes, stream>>>(g, t, psi, out, z_begin);
    } else if (t.sweep) {
      launch_sweep<ms, faces>(t, g, psi, out, z_begin, z_end, grid, stream);
    } else if (t.rows == 2) {
      step_plain<ms, faces, 2, 256, 4><<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    } else if (t.threads <= 256) {
      // 8 blocks of 256: the full 64 warps of an SM, at most 32 registers a thread.
      step_plain<ms, faces, 1, 256, 8><<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    } else {
      step_plain<ms, faces, 1, 512, 1><<<grid, t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    }
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
