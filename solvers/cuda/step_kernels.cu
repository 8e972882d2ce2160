// The step kernel of Algorithm 1, in two variants that differ only in where same-row neighbours are
// read from.

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

namespace decgpe::cuda {

namespace {

constexpr int kMaxThreads = 544; // C15's 4 instances × 136 cells

template <int MS, int F, bool SHARED>
__global__ void __launch_bounds__(kMaxThreads)
    step_kernel(DeviceGrid g, Tiling t, const Complex* __restrict__ psi, Complex* __restrict__ out,
                int z_begin) {
  // SHARED: ψⁿ of instances x0 − 1 … x0 + tile of this row (the x halo included).
  extern __shared__ double2 staged[];
  const int row = blockIdx.x / t.tiles_per_row;
  const int x0 = (blockIdx.x - row * t.tiles_per_row) * t.tile;
  const int sy = row % g.sy;
  const int sz = z_begin + row / g.sy;
  const long long row_base = (static_cast<long long>(sz) * g.sy + sy) * g.sx * MS;
  const bool inner_row = sy > 0 && sy < g.sy - 1 && sz > 0 && sz < g.sz - 1;
  if constexpr (SHARED) {
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
  const Complex previous = load(out + i);  // issued first: independent of everything below
  const Complex psi_i =
      SHARED ? Complex{staged[(tx + 1) * MS + l].x, staged[(tx + 1) * MS + l].y} : load_ro(psi + i);
  Complex lap{0.0, 0.0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const Face fc = face(g, f * MS + l);
    if (fc.weight == 0.0) {
      continue;
    }
    Complex psi_j{0.0, 0.0};
    if (inside(g, fc, sx, sy, sz, inner_row)) {
      if (SHARED && fc.dy == 0 && fc.dz == 0) {
        const double2 v = staged[(tx + 1 + fc.dx) * MS + fc.local];
        psi_j = {v.x, v.y};
      } else {
        psi_j = load_ro(psi + i + fc.delta);
      }
    }
    lap = add_face(lap, fc.weight, psi_i, psi_j);
  }
  const double v = potential_at(g, sx, sy, sz, l, i);
  store(out + i, leapfrog_update(previous, psi_i, lap, v, g.g, g.two_dt));
}

} // namespace

Tiling make_tiling(StepVariant variant, const DeviceGrid& g) {
  // About 512 threads a block: whole structure instances, so a block's cells are contiguous in
  // memory. The shared variant's halo costs two instances a tile, so it wants the longest tile that
  // fits.
  // Tiles of a row are balanced (87 instances become 29 + 29 + 29, not 42 + 42 + 3).
  const int per_block = variant == StepVariant::shared ? kMaxThreads : 512;
  const int longest = std::max(1, std::min(per_block / g.ms, g.sx));
  const int tiles_per_row = (g.sx + longest - 1) / longest;
  const int tile = (g.sx + tiles_per_row - 1) / tiles_per_row;
  return {tile, (tile * g.ms + 31) / 32 * 32, tiles_per_row};
}

void launch_step(StepVariant variant, const Tiling& t, const DeviceGrid& g, const Complex* psi,
                 Complex* out, int z_begin, int z_end, cudaStream_t stream) {
  const long long blocks = static_cast<long long>(t.tiles_per_row) * g.sy * (z_end - z_begin);
  if (blocks <= 0) {
    return;
  }
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if (variant == StepVariant::shared) {
      // At most (544 + 2 · 136) · 16 B = 13 KB: within the default 48 KB, no opt-in needed.
      const std::size_t bytes = static_cast<std::size_t>(t.tile + 2) * ms * sizeof(double2);
      step_kernel<ms, faces, true>
          <<<static_cast<unsigned>(blocks), t.threads, bytes, stream>>>(g, t, psi, out, z_begin);
    } else {
      step_kernel<ms, faces, false>
          <<<static_cast<unsigned>(blocks), t.threads, 0, stream>>>(g, t, psi, out, z_begin);
    }
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
