// Diagnostics as device reductions (the max-reduction note's pattern): each thread accumulates its
// cell, a tree in the block combines the threads, one partial per block goes to memory, and a
// single block reduces the partials. Only the final 64 bytes cross to the host.

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

namespace decgpe::cuda {

namespace {

constexpr int kReduceThreads = 1024;

__device__ __forceinline__ DiagnosticSums combine(const DiagnosticSums& a,
                                                  const DiagnosticSums& b) {
  return {a.norm + b.norm,
          a.energy + b.energy,
          a.invariant + b.invariant,
          a.overlap_re + b.overlap_re,
          a.overlap_im + b.overlap_im,
          fmax(a.max_abs, b.max_abs),
          fmax(a.max_diagonal, b.max_diagonal),
          a.nonfinite + b.nonfinite};
}

__device__ __forceinline__ DiagnosticSums shuffle_down(const DiagnosticSums& s, int offset) {
  return {__shfl_down_sync(0xffffffffu, s.norm, offset),
          __shfl_down_sync(0xffffffffu, s.energy, offset),
          __shfl_down_sync(0xffffffffu, s.invariant, offset),
          __shfl_down_sync(0xffffffffu, s.overlap_re, offset),
          __shfl_down_sync(0xffffffffu, s.overlap_im, offset),
          __shfl_down_sync(0xffffffffu, s.max_abs, offset),
          __shfl_down_sync(0xffffffffu, s.max_diagonal, offset),
          __shfl_down_sync(0xffffffffu, s.nonfinite, offset)};
}

/// Tree reduction over the block; the result is valid in thread 0. blockDim.x must be a multiple
/// of 32.
__device__ DiagnosticSums block_reduce(DiagnosticSums s) {
  __shared__ DiagnosticSums per_warp[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    s = combine(s, shuffle_down(s, offset));
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    per_warp[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    s = lane < static_cast<int>(blockDim.x / 32) ? per_warp[lane] : DiagnosticSums{};
    for (int offset = 16; offset > 0; offset /= 2) {
      s = combine(s, shuffle_down(s, offset));
    }
  }
  return s;
}

template <int MS, int F>
__global__ void __launch_bounds__(544)
    cell_sums(DeviceGrid g, Tiling t, const Complex* __restrict__ previous,
              const Complex* __restrict__ psi, const Complex* __restrict__ reference,
              DiagnosticSums* partials) {
  // Owned slices only: a slab's halo slices belong to its neighbours' sums.
  const int z_begin = g.owned_begin;
  const int row = blockIdx.x / t.tiles_per_row;
  const int x0 = (blockIdx.x - row * t.tiles_per_row) * t.tile;
  const int sy = row % g.sy;
  const int sz = z_begin + row / g.sy;
  const int tx = threadIdx.x / MS;
  const int l = threadIdx.x - tx * MS;
  const int sx = x0 + tx;
  DiagnosticSums s{};
  if (tx < t.tile && sx < g.sx) {
    const long long i =
        (static_cast<long long>(sz) * g.sy + sy) * g.sx * MS + static_cast<long long>(sx) * MS + l;
    const bool inner_row =
        sy > 0 && sy < g.sy - 1 && sz + g.z_offset > 0 && sz + g.z_offset < g.global_z - 1;
    const Complex p = load_ro(psi + i);
    Complex lap{0.0, 0.0};
#pragma unroll
    for (int f = 0; f < F; ++f) {
      const Face fc = face(g, f * MS + l);
      if (fc.weight != 0.0) {
        lap = add_face(lap, fc.weight, p,
                       inside(g, fc, sx, sy, sz, inner_row) ? load_ro(psi + i + fc.delta)
                                                            : Complex{0.0, 0.0});
      }
    }
    const double v = potential_at(g, sx, sy, sz, l, i);
    const double vol = __ldg(g.volume + l);
    const double rho = norm2(p);
    const Complex ov = conj_mul(load_ro(reference + i), p);
    s.norm = vol * rho;
    s.energy = vol * (0.5 * conj_mul(p, lap).re + v * rho + 0.5 * g.g * rho * rho);
    s.invariant = vol * conj_mul(load_ro(previous + i), p).re;
    s.overlap_re = vol * ov.re;
    s.overlap_im = vol * ov.im;
    s.max_abs = sqrt(rho);
    s.max_diagonal = 0.5 * __ldg(g.weight_sum + l) + v + g.g * rho;
    s.nonfinite = (isfinite(p.re) && isfinite(p.im)) ? 0.0 : 1.0;
  }
  s = block_reduce(s);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
  }
}

__global__ void __launch_bounds__(kReduceThreads)
    reduce_partials(const DiagnosticSums* __restrict__ partials, long count,
                    DiagnosticSums* result) {
  DiagnosticSums s{};
  for (long k = threadIdx.x; k < count; k += blockDim.x) {
    s = combine(s, partials[k]);
  }
  s = block_reduce(s);
  if (threadIdx.x == 0) {
    *result = s;
  }
}

} // namespace

long diagnostics_blocks(const Tiling& t, const DeviceGrid& g) {
  return static_cast<long>(t.tiles_per_row) * g.sy * (g.owned_end - g.owned_begin);
}

void launch_diagnostics(const Tiling& t, const DeviceGrid& g, const Complex* previous,
                        const Complex* psi, const Complex* reference, DiagnosticSums* partials,
                        DiagnosticSums* result, cudaStream_t stream) {
  const long blocks = diagnostics_blocks(t, g);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    cell_sums<ms, faces><<<static_cast<unsigned>(blocks), t.threads, 0, stream>>>(
        g, t, previous, psi, reference, partials);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
  reduce_partials<<<1, kReduceThreads, 0, stream>>>(partials, blocks, result);
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
