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

#include <cstdlib>
#include <string>

namespace decgpe::cuda {

namespace {

constexpr int kMaxThreads = 544; // C15's 4 instances × 136 cells

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
  throw std::invalid_argument(
      "the plain kernel's block shape must be 1x512, 1x256 or 2x256, got '" +
      std::string(shape.substr(0, 32)) + "'");
}

Tiling make_tiling(StepVariant variant, const DeviceGrid& g, PlainShape shape) {
  // About 512 threads a block of whole structure instances, so a block's cells are contiguous in
  // memory; the shared variant's halo costs two instances a tile, so it takes the longest tile that
  // fits. Tiles of a row are balanced (87 instances become 29 + 29 + 29, not 42 + 42 + 3).
  const int per_block = variant == StepVariant::shared ? kMaxThreads : shape.threads;
  const int longest = std::max(1, std::min(per_block / g.ms, g.sx));
  const int tiles_per_row = (g.sx + longest - 1) / longest;
  const int tile = (g.sx + tiles_per_row - 1) / tiles_per_row;
  const int rows = variant == StepVariant::shared ? 1 : shape.rows;
  return {tile, (tile * g.ms + 31) / 32 * 32, tiles_per_row, rows, (g.sy + rows - 1) / rows};
}

void launch_step(StepVariant variant, const Tiling& t, const DeviceGrid& g, const Complex* psi,
                 Complex* out, int z_begin, int z_end, cudaStream_t stream) {
  const long long blocks =
      static_cast<long long>(t.tiles_per_row) * t.row_groups * (z_end - z_begin);
  if (blocks <= 0) {
    return;
  }
  const auto grid = static_cast<unsigned>(blocks);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if (variant == StepVariant::shared) {
      // At most (544 + 2 · 136) · 16 B = 13 KB: within the default 48 KB, no opt-in needed.
      const std::size_t bytes = static_cast<std::size_t>(t.tile + 2) * ms * sizeof(double2);
      step_shared<ms, faces><<<grid, t.threads, bytes, stream>>>(g, t, psi, out, z_begin);
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
