// The stencil kernels of the schemes other than the fused leapfrog (M·ψ, the RK4 stages, the
// Chebyshev terms, the Trotter–Suzuki colours) and the pointwise kernels. A stencil pass is an
// operation object (sweep.cuh's interface) run by the sweep where the tiling is one, else by one
// thread per cell of one slice; its arithmetic is solvers/cell_arithmetic.hpp's, so each pass is
// one pass over memory and bitwise equal to reference. Each is templated on the precision's types:
// ψ stored as Value, each cell's arithmetic in Real (cpu::CellUpdate's roundings).

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/lattice_dispatch.cuh"
#include "solvers/cuda/sweep.cuh"
#include "solvers/face_colouring.hpp"

namespace decgpe::cuda {

namespace {

constexpr int kCellThreads = 256;
static_assert(kCellThreads <= kMaxStencilThreads, "a rotating frame keeps a phase per thread");

/// Operands none: the pass reads only its stencil input.
struct NoEarly {};

/// The types of a pass in the precision Types: Value stored, R computed in.
#define DECGPE_PASS_TYPES(Types)                                                                   \
  using Value = Stored<Types>;                                                                     \
  using Real = typename Types::Real;                                                               \
  using R = BasicComplex<Real>

template <class Types> struct ApplyM {
  DECGPE_PASS_TYPES(Types);
  Value* out;
  using Early = NoEarly;
  __device__ Early early(long long) const { return {}; }
  __device__ void prefetch(long long, unsigned) const {}
  __device__ void operator()(long long i, Early, R, R m) const { store(out + i, m); }
};

/// Whether an RK4 stage's sweep skips the row-end test on the 4-face lattices (sweep.cuh,
/// kTestsRowEnds): in mixed precision, measured on an H200 at 64M DOFs +3 to +13% (BCC, A15, C15,
/// Z), at 8M +0 to +12%; double moved -3 to +4% and single -2 to +9%, so both keep it.
template <class Types> constexpr bool kRk4UntestedRowEnds = Types::precision == Precision::mixed;

/// RK4 stage 0: input = base.
template <class Types> struct Rk4First {
  DECGPE_PASS_TYPES(Types);
  static constexpr bool kUntestedRowEnds = kRk4UntestedRowEnds<Types>;
  Value* acc;
  Value* next;
  double acc_tau, next_tau;
  using Early = NoEarly;
  __device__ Early early(long long) const { return {}; }
  __device__ void prefetch(long long, unsigned) const {}
  __device__ void operator()(long long i, Early, R psi, R m) const {
    store(acc + i, step_along(psi, static_cast<Real>(acc_tau), m));
    store(next + i, step_along(psi, static_cast<Real>(next_tau), m));
  }
};

template <class Types> struct Rk4Middle {
  DECGPE_PASS_TYPES(Types);
  static constexpr bool kUntestedRowEnds = kRk4UntestedRowEnds<Types>;
  const Value* base;
  Value* acc;
  Value* next;
  double acc_tau, next_tau;
  struct Early {
    Value from, acc;
  };
  __device__ Early early(long long i) const { return {load(base + i), load(acc + i)}; }
  __device__ void prefetch(long long at, unsigned bytes) const {
    prefetch_l2(base + at, bytes);
    prefetch_l2(acc + at, bytes);
  }
  __device__ void operator()(long long i, Early e, R, R m) const {
    store(acc + i, step_along(convert<Real>(e.acc), static_cast<Real>(acc_tau), m));
    store(next + i, step_along(convert<Real>(e.from), static_cast<Real>(next_tau), m));
  }
};

/// `next` may be `acc` (in place): each thread reads its acc value before writing.
template <class Types> struct Rk4Last {
  DECGPE_PASS_TYPES(Types);
  static constexpr bool kUntestedRowEnds = kRk4UntestedRowEnds<Types>;
  const Value* acc;
  Value* next;
  double acc_tau;
  struct Early {
    Value acc;
  };
  __device__ Early early(long long i) const { return {load(acc + i)}; }
  __device__ void prefetch(long long at, unsigned bytes) const { prefetch_l2(acc + at, bytes); }
  __device__ void operator()(long long i, Early e, R, R m) const {
    store(next + i, step_along(convert<Real>(e.acc), static_cast<Real>(acc_tau), m));
  }
};

/// One term of the Chebyshev recurrence on the Laplacian sum; prev may be null, acc is not read
/// on the first term. The sum takes the term unrounded (cpu::CellUpdate::polynomial).
template <class Types> struct Polynomial {
  DECGPE_PASS_TYPES(Types);
  const Value* prev;
  Value* out;
  Value* acc;
  double alpha, beta, gamma;
  Complex c, c_in;
  bool first;
  struct Early {
    Value prev, acc;
  };
  __device__ Early early(long long i) const {
    return {prev != nullptr ? load(prev + i) : Value{0, 0}, first ? Value{0, 0} : load(acc + i)};
  }
  __device__ void prefetch(long long at, unsigned bytes) const {
    if (prev != nullptr) {
      prefetch_l2(prev + at, bytes);
    }
    if (!first) {
      prefetch_l2(acc + at, bytes);
    }
  }
  __device__ void operator()(long long i, Early e, R psi, R lap) const {
    const R next = recurrence_term(psi, lap, convert<Real>(e.prev), static_cast<Real>(alpha),
                                   static_cast<Real>(beta), static_cast<Real>(gamma));
    store(out + i, next);
    store(acc + i, accumulate_term(first, convert<Real>(e.acc), convert<Real>(c_in), psi,
                                   convert<Real>(c), next));
  }
};

/// op(i, early, ψ_i, r) for every cell of one slice per block of the one-row tiling: r = (M(ψ)ψ)_i
/// (APPLY_M) or Σ_F w_F (ψ_i − ψ_j). The pass's other operands are loaded last here (cubic's and
/// cubic4's RK4 stages and Chebyshev terms measured 3.5–9% slower with them first on the H100).
template <int MS, int F, bool APPLY_M, bool ROTATES, class Op>
__global__ void __launch_bounds__(kCellThreads)
    stencil_cells(DeviceGrid g, Tiling t, const typename Op::Value* __restrict__ in, Op op,
                  int z_begin) {
  using Real = typename Op::Real;
  CellIndex c{};
  if (!cell_of_thread<MS>(g, t, z_begin, c)) {
    return;
  }
  const CellFrameOf<MS, ROTATES> frame = CellFrameOf<MS, ROTATES>::at(g, c.sx, c.sy, c.l);
  const BasicComplex<Real> p = convert<Real>(load_ro(in + c.i));
  const BasicComplex<Real> lap = face_sum<MS, F>(g, in, c.i, c.sx, c.sy, c.sz, c.l, p, frame);
  BasicComplex<Real> r = lap;
  if constexpr (APPLY_M) {
    const double v = frame.potential(g, c.sx, c.sy, c.sz + g.z_offset, c.l, c.i);
    r = apply_m(p, lap, static_cast<Real>(v), static_cast<Real>(g.g));
  }
  op(c.i, op.early(c.i), p, r);
}

/// Cell c after one colour of a Trotter–Suzuki sweep: rotated with its partner across its face of
/// the colour (both sides compute the same pair update from the old values), or as it was. In a
/// rotating frame the pair is (ψ_i, e^{−iθ_ij} ψ_j), cell i's gauge (cpu::face_rotated_magnetic).
/// In Real from ψ stored as S, k rounded to Real.
template <int MS, bool ROTATES, class Real, class S>
__device__ __forceinline__ BasicComplex<Real>
face_rotated(const DeviceGrid& g, const CellIndex& c, const BasicComplex<S>* __restrict__ in,
             const std::int8_t* __restrict__ faces, const Complex* __restrict__ k) {
  const BasicComplex<Real> p = convert<Real>(load_ro(in + c.i));
  const int f = __ldg(faces + cell_parity(c.sx, c.sy, c.sz + g.z_offset) * MS + c.l);
  if (f < 0) {
    return p;
  }
  const int e = f * MS + c.l;
  const Face fc = face(g, e);
  const bool inner_row =
      c.sy > 0 && c.sy < g.sy - 1 && c.sz + g.z_offset > 0 && c.sz + g.z_offset < g.global_z - 1;
  if (inside(g, fc, c.sx, c.sy, c.sz, inner_row)) {
    BasicComplex<Real> partner = convert<Real>(load_ro(in + c.i + fc.delta));
    if constexpr (ROTATES) {
      partner = mul(convert<Real>(face_phase(g, c.sx, c.sy, c.l, fc)), partner);
    }
    return rotate_face(p, partner, convert<Real>(load_ro(k + 2 * e)));
  }
  return rotate_face(p, BasicComplex<Real>{0, 0}, convert<Real>(load_ro(k + 2 * e + 1)));
}

/// exp(−iτ(V + g|ψ|²)) ψ of a stored value, in Real from V, g and τ rounded to it.
template <class Real, class S>
__device__ __forceinline__ BasicComplex<Real>
phase_rotated(const DeviceGrid& g, BasicComplex<S> psi, double v, double tau) {
  return rotate_phase(convert<Real>(psi), static_cast<Real>(v), static_cast<Real>(g.g),
                      static_cast<Real>(tau));
}

/// One colour of a sweep, and the split's phase after it when phase_tau ≠ 0 (FaceSweep): the
/// rotated value rounded to Store first, so the fused pass is bitwise the two.
template <class Types, int MS, bool ROTATES>
__global__ void __launch_bounds__(kCellThreads)
    face_cells(DeviceGrid g, Tiling t, const Stored<Types>* __restrict__ in,
               Stored<Types>* __restrict__ out, const std::int8_t* __restrict__ faces,
               const Complex* __restrict__ k, double phase_tau, int z_begin) {
  using Real = typename Types::Real;
  CellIndex c{};
  if (!cell_of_thread<MS>(g, t, z_begin, c)) {
    return;
  }
  const auto rotated =
      convert<typename Types::Store>(face_rotated<MS, ROTATES, Real>(g, c, in, faces, k));
  if (phase_tau == 0.0) {
    store(out + c.i, rotated);
    return;
  }
  const double v = frame_potential(g, c.sx, c.sy, c.sz + g.z_offset, c.l, c.i);
  store(out + c.i, phase_rotated<Real>(g, rotated, v, phase_tau));
}

template <class Types, int MS>
__global__ void __launch_bounds__(kCellThreads)
    rotate_cells(DeviceGrid g, Tiling t, Stored<Types>* psi, double tau) {
  CellIndex c{};
  if (cell_of_thread<MS>(g, t, 0, c)) {
    const double v = frame_potential(g, c.sx, c.sy, c.sz + g.z_offset, c.l, c.i);
    store(psi + c.i, phase_rotated<typename Types::Real>(g, load(psi + c.i), v, tau));
  }
}

template <class Types>
__global__ void axpby_cells(long long count, Stored<Types>* out, Complex a, const Stored<Types>* x,
                            Complex b, const Stored<Types>* y) {
  using Real = typename Types::Real;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    store(out + i, axpby(convert<Real>(a), convert<Real>(load(x + i)), convert<Real>(b),
                         convert<Real>(load(y + i))));
  }
}

unsigned blocks_for(const Tiling& t, const DeviceGrid& g, int z_begin, int z_end) {
  return static_cast<unsigned>(static_cast<long long>(t.tiles_per_row) * g.sy *
                               std::max(0, z_end - z_begin));
}

/// The pass of `op` over the slices [z_begin, z_end) in g's frame: a sweep where t is one, else one
/// slice a block.
template <bool APPLY_M, class Op>
void launch_stencil(const Tiling& t, const DeviceGrid& g, const typename Op::Value* in,
                    const Op& op, int z_begin, int z_end, cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, z_begin, z_end);
  if (blocks == 0) {
    return;
  }
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto faces) {
    if (t.sweep) {
      launch_sweep<ms, faces, APPLY_M>(t, g, in, op, z_begin, z_end, stream);
    } else {
      with_frame(g, [&](auto rotates) {
        stencil_cells<ms, faces, APPLY_M, rotates>
            <<<blocks, t.threads, 0, stream>>>(g, t, in, op, z_begin);
      });
    }
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

template <class Types>
void launch_apply_m(const Tiling& t, const DeviceGrid& g, const Stored<Types>* in,
                    Stored<Types>* out, int z_begin, int z_end, cudaStream_t stream) {
  launch_stencil<true>(t, g, in, ApplyM<Types>{out}, z_begin, z_end, stream);
}

template <class Types>
void launch_rk4_stage(const Tiling& t, const DeviceGrid& g, const Rk4Stage& s, Rk4Vectors<Types> v,
                      int z_begin, int z_end, cudaStream_t stream) {
  if (s.stage == 0) {
    launch_stencil<true>(t, g, v.input, Rk4First<Types>{v.acc, v.next, s.acc_tau, s.next_tau},
                         z_begin, z_end, stream);
  } else if (s.stage == 3) {
    launch_stencil<true>(t, g, v.input, Rk4Last<Types>{v.acc, v.next, s.acc_tau}, z_begin, z_end,
                         stream);
  } else {
    launch_stencil<true>(t, g, v.input,
                         Rk4Middle<Types>{v.base, v.acc, v.next, s.acc_tau, s.next_tau}, z_begin,
                         z_end, stream);
  }
}

template <class Types>
void launch_rotate_faces(const Tiling& t, const DeviceGrid& g, const Stored<Types>* in,
                         Stored<Types>* out, const std::int8_t* faces, const Complex* k,
                         double phase_tau, int z_begin, int z_end, cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, z_begin, z_end);
  if (blocks == 0) {
    return;
  }
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    with_frame(g, [&](auto rotates) {
      face_cells<Types, ms, rotates>
          <<<blocks, t.threads, 0, stream>>>(g, t, in, out, faces, k, phase_tau, z_begin);
    });
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

template <class Types>
void launch_polynomial_term(const Tiling& t, const DeviceGrid& g, const PolynomialTerm& term,
                            PolynomialVectors<Types> v, int z_begin, int z_end,
                            cudaStream_t stream) {
  const Polynomial<Types> op{v.prev,     v.out,  v.acc,     term.alpha, term.beta,
                             term.gamma, term.c, term.c_in, term.first};
  launch_stencil<false>(t, g, v.in, op, z_begin, z_end, stream);
}

template <class Types>
void launch_axpby(long long count, Stored<Types>* out, Complex a, const Stored<Types>* x, Complex b,
                  const Stored<Types>* y, cudaStream_t stream) {
  if (count == 0) {
    return;
  }
  const long long blocks = std::min<long long>((count + 255) / 256, 65536);
  axpby_cells<Types><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(count, out, a, x, b, y);
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

template <class Types>
void launch_rotate_phase(const Tiling& t, const DeviceGrid& g, Stored<Types>* psi, double tau,
                         cudaStream_t stream) {
  const unsigned blocks = blocks_for(t, g, 0, g.sz);
  dispatch_lattice(g.ms, g.max_faces, [&](auto ms, auto) {
    rotate_cells<Types, ms><<<blocks, t.threads, 0, stream>>>(g, t, psi, tau);
  });
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

#define DECGPE_INSTANTIATE(Types)                                                                  \
  template void launch_apply_m<Types>(const Tiling&, const DeviceGrid&, const Stored<Types>*,      \
                                      Stored<Types>*, int, int, cudaStream_t);                     \
  template void launch_rk4_stage<Types>(const Tiling&, const DeviceGrid&, const Rk4Stage&,         \
                                        Rk4Vectors<Types>, int, int, cudaStream_t);                \
  template void launch_rotate_faces<Types>(const Tiling&, const DeviceGrid&, const Stored<Types>*, \
                                           Stored<Types>*, const std::int8_t*, const Complex*,     \
                                           double, int, int, cudaStream_t);                        \
  template void launch_polynomial_term<Types>(const Tiling&, const DeviceGrid&,                    \
                                              const PolynomialTerm&, PolynomialVectors<Types>,     \
                                              int, int, cudaStream_t);                             \
  template void launch_axpby<Types>(long long, Stored<Types>*, Complex, const Stored<Types>*,      \
                                    Complex, const Stored<Types>*, cudaStream_t);                  \
  template void launch_rotate_phase<Types>(const Tiling&, const DeviceGrid&, Stored<Types>*,       \
                                           double, cudaStream_t);
DECGPE_FOR_EACH_PRECISION(DECGPE_INSTANTIATE)
#undef DECGPE_INSTANTIATE

} // namespace decgpe::cuda
