// Diagnostics as device reductions (the max-reduction note's pattern): each thread accumulates its
// cell, a tree in the block combines the threads, one partial per block goes to memory, and a
// single block reduces the partials. Only the final 88 bytes (16 for an adaptive step's maxima)
// cross to the host. In every precision they measure the stored values widened to FP64, with the
// FP64 face sums of double (solvers/precision.hpp).

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"

namespace decgpe::cuda {

namespace {

constexpr int kReduceThreads = 1024;

__device__ __forceinline__ CellSums shuffle_down(const CellSums& s, int offset) {
  return {__shfl_down_sync(0xffffffffu, s.norm, offset),
          __shfl_down_sync(0xffffffffu, s.energy, offset),
          __shfl_down_sync(0xffffffffu, s.kinetic, offset),
          __shfl_down_sync(0xffffffffu, s.trap, offset),
          __shfl_down_sync(0xffffffffu, s.interaction, offset),
          __shfl_down_sync(0xffffffffu, s.invariant, offset),
          __shfl_down_sync(0xffffffffu, s.overlap_re, offset),
          __shfl_down_sync(0xffffffffu, s.overlap_im, offset),
          __shfl_down_sync(0xffffffffu, s.max_abs, offset),
          __shfl_down_sync(0xffffffffu, s.max_diagonal, offset),
          __shfl_down_sync(0xffffffffu, s.nonfinite, offset)};
}

__device__ __forceinline__ RotatingSums shuffle_down(const RotatingSums& s, int offset) {
  return {shuffle_down(s.frame, offset), shuffle_down(s.lab, offset)};
}

__device__ __forceinline__ StepSums shuffle_down(const StepSums& s, int offset) {
  return {__shfl_down_sync(0xffffffffu, s.phase_rate, offset),
          __shfl_down_sync(0xffffffffu, s.difference, offset)};
}

/// Tree reduction over the block; the result is valid in thread 0. blockDim.x must be a multiple
/// of 32.
template <class Sums> __device__ Sums block_reduce(Sums s) {
  __shared__ Sums per_warp[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    s = combine(s, shuffle_down(s, offset));
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    per_warp[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    s = lane < static_cast<int>(blockDim.x / 32) ? per_warp[lane] : Sums{};
    for (int offset = 16; offset > 0; offset /= 2) {
      s = combine(s, shuffle_down(s, offset));
    }
  }
  return s;
}

/// Cell c's diagnostics terms in the lab frame.
template <int MS, int F, class Value>
__device__ __forceinline__ void accumulate_cell(CellSums& s, const DeviceGrid& g,
                                                const CellIndex& c, Complex previous, Complex p,
                                                Complex reference, const Value* psi) {
  const Complex lap = face_sum<MS, F>(g, psi, c.i, c.sx, c.sy, c.sz, c.l, p);
  accumulate(s, __ldg(g.volume + c.l), __ldg(g.weight_sum + c.l), previous, p, reference, lap,
             potential_at(g, c.sx, c.sy, c.sz, c.l, c.i), g.g);
}

/// The same in a rotating frame: the frame's terms (½L_A, V − ½Ω²ρ²) and the lab's.
template <int MS, int F, class Value>
__device__ __forceinline__ void accumulate_cell(RotatingSums& s, const DeviceGrid& g,
                                                const CellIndex& c, Complex previous, Complex p,
                                                Complex reference, const Value* psi) {
  const auto frame = RotatingCell<MS>::at(g, c.sx, c.sy, c.l);
  const int gz = c.sz + g.z_offset;
  accumulate_rotating(s, __ldg(g.volume + c.l), __ldg(g.weight_sum + c.l), previous, p, reference,
                      face_sum<MS, F>(g, psi, c.i, c.sx, c.sy, c.sz, c.l, p, frame),
                      frame.potential(g, c.sx, c.sy, gz, c.l, c.i),
                      face_sum<MS, F>(g, psi, c.i, c.sx, c.sy, c.sz, c.l, p),
                      potential_at_global(g, c.sx, c.sy, gz, c.l, c.i), g.g);
}

/// The value at `i` widened to FP64, zero for a null vector.
template <class Value> __device__ __forceinline__ Complex wide(const Value* v, long long i) {
  return v != nullptr ? convert<double>(load_ro(v + i)) : Complex{0.0, 0.0};
}

template <int MS, int F, class Value, class Sums>
__global__ void __launch_bounds__(544)
    cell_sums(DeviceGrid g, Tiling t, const Value* __restrict__ previous,
              const Value* __restrict__ psi, const Value* __restrict__ reference, Sums* partials) {
  Sums s{};
  CellIndex c{};
  // Owned slices only: a slab's halo slices belong to its neighbours' sums.
  if (cell_of_thread<MS>(g, t, g.owned_begin, c)) {
    accumulate_cell<MS, F>(s, g, c, wide(previous, c.i), wide(psi, c.i), wide(reference, c.i), psi);
  }
  s = block_reduce(s);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
  }
}

/// The maxima of StepSums over the owned slices; one partial per block.
template <int MS, class Value>
__global__ void __launch_bounds__(544)
    step_sums(DeviceGrid g, Tiling t, const Value* __restrict__ x, const Value* __restrict__ y,
              double density_floor, StepSums* partials) {
  StepSums s{};
  CellIndex c{};
  if (cell_of_thread<MS>(g, t, g.owned_begin, c)) {
    accumulate_step(s, wide(x, c.i), wide(y, c.i),
                    frame_potential(g, c.sx, c.sy, c.sz + g.z_offset, c.l, c.i), g.g,
                    density_floor);
  }
  s = block_reduce(s);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
  }
}

template <class Sums>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_partials(const Sums* __restrict__ partials, long count, Sums* result) {
  Sums s{};
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

template <class Value, class Sums>
void launch_diagnostics(const Tiling& t, const DeviceGrid& g, const Value* previous,
                        const Value* psi, const Value* reference, Sums* partials, Sums* result,
                        cudaStream_t stream) {
  const long blocks = diagnostics_blocks(t, g);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    cell_sums<ms, faces><<<static_cast<unsigned>(blocks), t.threads, 0, stream>>>(
        g, t, previous, psi, reference, partials);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
  reduce_partials<<<1, kReduceThreads, 0, stream>>>(partials, blocks, result);
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

template <class Value>
void launch_step_maxima(const Tiling& t, const DeviceGrid& g, const Value* x, const Value* y,
                        double density_floor, StepSums* partials, StepSums* result,
                        cudaStream_t stream) {
  const long blocks = diagnostics_blocks(t, g);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    step_sums<ms><<<static_cast<unsigned>(blocks), t.threads, 0, stream>>>(g, t, x, y,
                                                                           density_floor, partials);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
  reduce_partials<<<1, kReduceThreads, 0, stream>>>(partials, blocks, result);
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

// Single and mixed store the same values: one instantiation each for Complex and ComplexFloat.
#define DECGPE_INSTANTIATE(Value)                                                                  \
  template void launch_diagnostics(const Tiling&, const DeviceGrid&, const Value*, const Value*,   \
                                   const Value*, CellSums*, CellSums*, cudaStream_t);              \
  template void launch_diagnostics(const Tiling&, const DeviceGrid&, const Value*, const Value*,   \
                                   const Value*, RotatingSums*, RotatingSums*, cudaStream_t);      \
  template void launch_step_maxima(const Tiling&, const DeviceGrid&, const Value*, const Value*,   \
                                   double, StepSums*, StepSums*, cudaStream_t);
DECGPE_INSTANTIATE(Complex)
DECGPE_INSTANTIATE(ComplexFloat)
#undef DECGPE_INSTANTIATE

} // namespace decgpe::cuda
