// The stencil kernels of the schemes other than the fused leapfrog (M·ψ, the RK4 stages) and the
// pointwise kernels. One thread per cell; the per-cell work is an operation object whose
// arithmetic is solvers/cell_arithmetic.hpp's, so each stage is one pass over memory.

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"
#include "solvers/face_colouring.hpp"

namespace decgpe::cuda {

namespace {

constexpr int kCellThreads = 256;

struct ApplyM {
  Complex* out;
  __device__ void operator()(long long i, Complex psi, Complex m) const { store(out + i, m); }
};

/// RK4 stage 0: input = base.
struct Rk4First {
  Complex* acc;
  Complex* next;
  double acc_tau, next_tau;
  __device__ void operator()(long long i, Complex psi, Complex m) const {
    store(acc + i, step_along(psi, acc_tau, m));
    store(next + i, step_along(psi, next_tau, m));
  }
};

struct Rk4Middle {
  const Complex* base;
  Complex* acc;
  Complex* next;
  double acc_tau, next_tau;
  __device__ void operator()(long long i, Complex, Complex m) const {
    const Complex from = load(base + i);
    store(acc + i, step_along(load(acc + i), acc_tau, m));
    store(next + i, step_along(from, next_tau, m));
  }
};

/// `next` may be `acc` (in place): each thread reads its acc value before writing.
struct Rk4Last {
  const Complex* acc;
  Complex* next;
  double acc_tau;
  __device__ void operator()(long long i, Complex, Complex m) const {
    store(next + i, step_along(load(acc + i), acc_tau, m));
  }
};

/// op(i, ψ_i, (M(ψ)ψ)_i) for every cell of the slices [z_begin, ...) the grid of blocks covers.
template <int MS, int F, class Op>
__global__ void __launch_bounds__(kCellThreads)
    stencil_cells(DeviceGrid g, Tiling t, const Complex* __restrict__ in, Op op, int z_begin) {
  CellIndex c{};
  if (!cell_of_thread<MS>(g, t, z_begin, c)) {
    return;
  }
  const Complex p = load_ro(in + c.i);
  const Complex lap = face_sum<MS, F>(g, in, c.i, c.sx, c.sy, c.sz, c.l, p);
  op(c.i, p, apply_m(p, lap, potential_at(g, c.sx, c.sy, c.sz, c.l, c.i), g.g));
}

/// op(i, ψ_i, Σ_F w_F (ψ_i − ψ_j)) for every cell of the slices the grid of blocks covers.
template <int MS, int F, class Op>
__global__ void __launch_bounds__(kCellThreads)
    laplacian_cells(DeviceGrid g, Tiling t, const Complex* __restrict__ in, Op op, int z_begin) {
  CellIndex c{};
  if (cell_of_thread<MS>(g, t, z_begin, c)) {
    const Complex p = load_ro(in + c.i);
    op(c.i, p, face_sum<MS, F>(g, in, c.i, c.sx, c.sy, c.sz, c.l, p));
  }
}

struct Polynomial {
  const Complex* prev;
  Complex* out;
  Complex* acc;
  double alpha, beta, gamma;
  Complex c, c_in;
  bool first;
  __device__ void operator()(long long i, Complex psi, Complex lap) const {
    const Complex p = prev != nullptr ? load(prev + i) : Complex{0.0, 0.0};
    const Complex next = recurrence_term(psi, lap, p, alpha, beta, gamma);
    store(out + i, next);
    store(acc + i,
          accumulate_term(first, first ? Complex{0.0, 0.0} : load(acc + i), c_in, psi, c, next));
  }
};

/// Cell c after one colour of a Trotter–Suzuki sweep: rotated with its partner across its face of
/// the colour (both sides compute the same pair update from the old values), or as it was.
template <int MS>
__device__ __forceinline__ Complex face_rotated(const DeviceGrid& g, const CellIndex& c,
                                                const Complex* __restrict__ in,
                                                const std::int8_t* __restrict__ faces,
                                                const Complex* __restrict__ k) {
  const Complex p = load_ro(in + c.i);
  const int f = __ldg(faces + cell_parity(c.sx, c.sy, c.sz + g.z_offset) * MS + c.l);
  if (f < 0) {
    return p;
  }
  const int e = f * MS + c.l;
  const Face fc = face(g, e);
  const bool inner_row =
      c.sy > 0 && c.sy < g.sy - 1 && c.sz + g.z_offset > 0 && c.sz + g.z_offset < g.global_z - 1;
  if (inside(g, fc, c.sx, c.sy, c.sz, inner_row)) {
    return rotate_face(p, load_ro(in + c.i + fc.delta), load_ro(k + 2 * e));
  }
  return rotate_face(p, Complex{0.0, 0.0}, load_ro(k + 2 * e + 1));
}

/// One colour of a sweep, and the split's phase after it when phase_tau ≠ 0 (FaceSweep).
template <int MS>
__global__ void __launch_bounds__(kCellThreads)
    face_cells(DeviceGrid g, Tiling t, const Complex* __restrict__ in, Complex* __restrict__ out,
               const std::int8_t* __restrict__ faces, const Complex* __restrict__ k,
               double phase_tau, int z_begin) {
  CellIndex c{};
  if (!cell_of_thread<MS>(g, t, z_begin, c)) {
    return;
  }
  const Complex rotated = face_rotated<MS>(g, c, in, faces, k);
  store(out + c.i,
        phase_tau != 0.0
            ? rotate_phase(rotated, potential_at(g, c.sx, c.sy, c.sz, c.l, c.i), g.g, phase_tau)
            : rotated);
}

template <int MS>
__global__ void __launch_bounds__(kCellThreads)
    rotate_cells(DeviceGrid g, Tiling t, Complex* psi, double tau) {
  CellIndex c{};
  if (cell_of_thread<MS>(g, t, 0, c)) {
    store(psi + c.i,
          rotate_phase(load(psi + c.i), potential_at(g, c.sx, c.sy, c.sz, c.l, c.i), g.g, tau));
  }
}

__global__ void axpby_cells(long long count, Complex* out, Complex a, const Complex* x, Complex b,
                            const Complex* y) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    store(out + i, axpby(a, load(x + i), b, load(y + i)));
  }
}

unsigned blocks_for(const Tiling& t, const DeviceGrid& g, int z_begin, int z_end) {
  return static_cast<unsigned>(static_cast<long long>(t.tiles_per_row) * g.sy *
                               std::max(0, z_end - z_begin));
}

template <class Op>
void launch_stencil(const Tiling& t, const DeviceGrid& g, const Complex* in, Op op, int z_begin,
                    int z_end, cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, z_begin, z_end);
  if (blocks == 0) {
    return;
  }
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    stencil_cells<ms, faces><<<blocks, t.threads, 0, stream>>>(g, t, in, op, z_begin);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace

Tiling make_cell_tiling(const DeviceGrid& g) {
  const int tile = std::max(1, std::min(kCellThreads / g.ms, g.sx));
  const int tiles_per_row = (g.sx + tile - 1) / tile;
  const int balanced = (g.sx + tiles_per_row - 1) / tiles_per_row;
  return {balanced, (balanced * g.ms + 31) / 32 * 32, tiles_per_row, 1, g.sy};
}

void launch_apply_m(const Tiling& t, const DeviceGrid& g, const Complex* in, Complex* out,
                    int z_begin, int z_end, cudaStream_t stream) {
  launch_stencil(t, g, in, ApplyM{out}, z_begin, z_end, stream);
}

void launch_rk4_stage(const Tiling& t, const DeviceGrid& g, const Rk4Stage& s, Rk4Vectors v,
                      int z_begin, int z_end, cudaStream_t stream) {
  if (s.stage == 0) {
    launch_stencil(t, g, v.input, Rk4First{v.acc, v.next, s.acc_tau, s.next_tau}, z_begin, z_end,
                   stream);
  } else if (s.stage == 3) {
    launch_stencil(t, g, v.input, Rk4Last{v.acc, v.next, s.acc_tau}, z_begin, z_end, stream);
  } else {
    launch_stencil(t, g, v.input, Rk4Middle{v.base, v.acc, v.next, s.acc_tau, s.next_tau}, z_begin,
                   z_end, stream);
  }
}

void launch_rotate_faces(const Tiling& t, const DeviceGrid& g, const Complex* in, Complex* out,
                         const std::int8_t* faces, const Complex* k, double phase_tau, int z_begin,
                         int z_end, cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, z_begin, z_end);
  if (blocks == 0) {
    return;
  }
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    face_cells<ms><<<blocks, t.threads, 0, stream>>>(g, t, in, out, faces, k, phase_tau, z_begin);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

void launch_polynomial_term(const Tiling& t, const DeviceGrid& g, const PolynomialTerm& term,
                            PolynomialVectors v, int z_begin, int z_end, cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, z_begin, z_end);
  if (blocks == 0) {
    return;
  }
  const Polynomial op{v.prev,     v.out,  v.acc,     term.alpha, term.beta,
                      term.gamma, term.c, term.c_in, term.first};
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    laplacian_cells<ms, faces><<<blocks, t.threads, 0, stream>>>(g, t, v.in, op, z_begin);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

void launch_axpby(long long count, Complex* out, Complex a, const Complex* x, Complex b,
                  const Complex* y, cudaStream_t stream) {
  if (count == 0) {
    return;
  }
  const long long blocks = std::min<long long>((count + 255) / 256, 65536);
  axpby_cells<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(count, out, a, x, b, y);
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

void launch_rotate_phase(const Tiling& t, const DeviceGrid& g, Complex* psi, double tau,
                         cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, 0, g.sz);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    rotate_cells<ms><<<blocks, t.threads, 0, stream>>>(g, t, psi, tau);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
