#pragma once
// Device-side per-cell access: one vector load or store per value of ψ (16 bytes in double, 8 in
// single and mixed), the potential, and the face sum with Dirichlet zeros. The arithmetic is
// solvers/cell_arithmetic.hpp's in the precision's Real, in the CPU reference's order
// (cpu::CellUpdate: values widened on load, coefficients rounded from FP64 at their use, results
// rounded once when stored); built without FMA contraction (-fmad=false), the GPU state is bitwise
// identical to `reference` in the same precision.

#include "solvers/cell_arithmetic.hpp"
#include "solvers/cuda/device_tables.hpp"

#include <type_traits>

namespace decgpe::cuda {

/// The CUDA vector type of a complex of S: one 16- or 8-byte access.
template <class S> using Packed = std::conditional_t<std::is_same_v<S, double>, double2, float2>;

template <class S> __device__ __forceinline__ BasicComplex<S> load_ro(const BasicComplex<S>* p) {
  const Packed<S> v = __ldg(reinterpret_cast<const Packed<S>*>(p));
  return {v.x, v.y};
}
template <class S> __device__ __forceinline__ BasicComplex<S> load(const BasicComplex<S>* p) {
  const Packed<S> v = *reinterpret_cast<const Packed<S>*>(p);
  return {v.x, v.y};
}
/// Two consecutive 8-byte values (single, mixed) at a 16-byte aligned p: one 16-byte read-only
/// load, as a double's.
__device__ __forceinline__ void load_pair_ro(const BasicComplex<float>* p,
                                             BasicComplex<float> (&out)[2]) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(p));
  out[0] = {v.x, v.y};
  out[1] = {v.z, v.w};
}
__device__ __forceinline__ void load_pair(const BasicComplex<float>* p,
                                          BasicComplex<float> (&out)[2]) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  out[0] = {v.x, v.y};
  out[1] = {v.z, v.w};
}
/// a and b rounded to 8-byte values and stored at a 16-byte aligned p in one access.
template <class Real>
__device__ __forceinline__ void store_pair(BasicComplex<float>* p, BasicComplex<Real> a,
                                           BasicComplex<Real> b) {
  const BasicComplex<float> u = convert<float>(a), v = convert<float>(b);
  *reinterpret_cast<float4*>(p) = float4{u.re, u.im, v.re, v.im};
}

/// Stores z rounded to the vector's precision: the one rounding of a result (exact when the
/// precisions are the same).
template <class S, class Real>
__device__ __forceinline__ void store(BasicComplex<S>* p, BasicComplex<Real> z) {
  const BasicComplex<S> v = convert<S>(z);
  *reinterpret_cast<Packed<S>*>(p) = Packed<S>{v.re, v.im};
}

/// Coordinate `axis` of cell l of instance s along it: Grid::position's arithmetic, (origin +
/// centre) + s · box, bit for bit.
__device__ __forceinline__ double coordinate(const DeviceGrid& g, int axis, int s, int l) {
  return (g.origin[axis] + __ldg(g.centre + 3 * l + axis)) + static_cast<double>(s) * g.box[axis];
}

/// V at cell l of instance (sx, sy) in global z-slice gz, with the host's position arithmetic.
__device__ __forceinline__ double potential_at_global(const DeviceGrid& g, int sx, int sy, int gz,
                                                      int l, long long i) {
  if (g.potential != nullptr) {
    return __ldg(g.potential + i);
  }
  return harmonic_potential(coordinate(g, 0, sx, l), coordinate(g, 1, sy, l),
                            coordinate(g, 2, gz, l), g.lambda);
}

/// The same at the local z-slice sz of a slab (the whole domain: sz itself).
__device__ __forceinline__ double potential_at(const DeviceGrid& g, int sx, int sy, int sz, int l,
                                               long long i) {
  return potential_at_global(g, sx, sy, sz + g.z_offset, l, i);
}

/// Decoded stencil entry e = f · ms + l.
struct Face {
  double weight; ///< 0 marks a padding entry (rows shorter than the lattice's most faces)
  int local;     ///< neighbour's local index
  int dx, dy, dz;
  int delta;
  int slot; ///< its hop slot (FaceEntry::code)
};

__device__ __forceinline__ Face face(const DeviceGrid& g, int e) {
  const double2 raw = __ldg(reinterpret_cast<const double2*>(g.faces + e));
  const long long packed = __double_as_longlong(raw.y); // delta in the low word, code in the high
  const int delta = static_cast<int>(packed & 0xffffffffLL);
  const int code = static_cast<int>(packed >> 32);
  return {raw.x,
          code & 0xffff,
          ((code >> 16) & 3) - 1,
          ((code >> 18) & 3) - 1,
          ((code >> 20) & 3) - 1,
          delta,
          (code >> 22) & 31};
}

/// The weight and index offset of entry e alone: all a cell needs whose neighbours are all inside.
struct FaceWeight {
  double weight;
  int delta;
  int slot;
};

__device__ __forceinline__ FaceWeight face_weight(const DeviceGrid& g, int e) {
  const double2 raw = __ldg(reinterpret_cast<const double2*>(g.faces + e));
  const long long packed = __double_as_longlong(raw.y);
  return {raw.x, static_cast<int>(packed & 0xffffffffLL), static_cast<int>(packed >> 54) & 31};
}

/// Whether the neighbour across face f lies in the domain; `inner_row` says the y and z offsets
/// cannot leave it.
__device__ __forceinline__ bool inside(const DeviceGrid& g, const Face& f, int sx, int sy, int sz,
                                       bool inner_row) {
  const int nx = sx + f.dx;
  bool in = nx >= 0 && nx < g.sx;
  if (!inner_row) {
    const int ny = sy + f.dy, nz = sz + f.dz + g.z_offset;
    in = in && ny >= 0 && ny < g.sy && nz >= 0 && nz < g.global_z;
  }
  return in;
}

/// (x, y) of cell l of instance (sx, sy) relative to the rotation axis (cpu::from_axis's bits).
__device__ __forceinline__ double2 from_axis(const DeviceGrid& g, int sx, int sy, int l) {
  return make_double2(coordinate(g, 0, sx, l) - g.axis[0], coordinate(g, 1, sy, l) - g.axis[1]);
}

/// e^{−iθ_ij} for the neighbour across face fc of cell l of instance (sx, sy): what transported()
/// multiplies ψ_j by, from global positions (so a slab's phases are the whole domain's).
__device__ __forceinline__ Complex face_phase(const DeviceGrid& g, int sx, int sy, int l,
                                              const Face& fc) {
  const double2 c_i = from_axis(g, sx, sy, l);
  const double2 c_j = from_axis(g, sx + fc.dx, sy + fc.dy, fc.local);
  return cos_sin(-rotating_phase(g.omega, c_i.x, c_i.y, c_j.x, c_j.y));
}

/// w e^{−iθ_ij} for face fc of cell l of instance (sx, sy): its hop in magnetic_sum(), from global
/// positions like face_phase().
__device__ __forceinline__ Complex face_hop(const DeviceGrid& g, int sx, int sy, int l,
                                            const Face& fc) {
  const double2 c_i = from_axis(g, sx, sy, l);
  const double2 c_j = from_axis(g, sx + fc.dx, sy + fc.dy, fc.local);
  return weighted_phase(fc.weight, rotating_phase(g.omega, c_i.x, c_i.y, c_j.x, c_j.y));
}

/// V at a cell in the kernels' frame: V, or V − ½Ω²ρ² when g rotates (Potential::in_frame).
__device__ __forceinline__ double frame_potential(const DeviceGrid& g, int sx, int sy, int gz,
                                                  int l, long long i) {
  const double v = potential_at_global(g, sx, sy, gz, l, i);
  if (g.omega == 0.0) {
    return v;
  }
  const double2 c = from_axis(g, sx, sy, l);
  return v + centrifugal_potential(g.omega, c.x, c.y);
}

/// A frame's face sum is `sum = add(sum, f, slot, w, ψ_i, ψ_j)` over the faces in table order, then
/// `total(sum, ψ_i)`. The lab frame: Σ_F w_F (ψ_i − ψ_j) as add_face() sums it, V as the trap or
/// the table gives it.
struct LabFrame {
  __device__ static LabFrame at(const DeviceGrid&, int, int, int) { return {}; }
  template <class Real>
  __device__ BasicComplex<Real> add(BasicComplex<Real> sum, int, int, double weight,
                                    BasicComplex<Real> psi_i, BasicComplex<Real> psi_j) const {
    return add_face(sum, static_cast<Real>(weight), psi_i, psi_j);
  }
  template <class Real>
  __device__ BasicComplex<Real> total(BasicComplex<Real> sum, BasicComplex<Real>) const {
    return sum;
  }
  __device__ double potential(const DeviceGrid& g, int sx, int sy, int gz, int l,
                              long long i) const {
    return potential_at_global(g, sx, sy, gz, l, i);
  }
};

/// The lab frame of a thread that walks a column of cells (the sweep): LabFrame's face sum, and the
/// trap's parts that the column's slices share, found once: x² + y² and z's origin + centre. A
/// slice's V is then harmonic_potential_from(x² + y², z) with z = (origin + centre) + gz · box:
/// potential_at_global's bits, without its three table loads and in-plane arithmetic a cell.
struct LabColumn : LabFrame {
  double plane;    ///< x² + y² of the column (0 with a tabulated V)
  double z_origin; ///< origin_z + centre_z of its cells

  __device__ static LabColumn at(const DeviceGrid& g, int sx, int sy, int l) {
    if (g.potential != nullptr) {
      return {};
    }
    return {{},
            in_plane_square(coordinate(g, 0, sx, l), coordinate(g, 1, sy, l)),
            g.origin[2] + __ldg(g.centre + 3 * l + 2)};
  }
  /// V at slice gz of the column `at` was given: the frame's signature, whose sx, sy and l are
  /// that column's.
  __device__ double potential(const DeviceGrid& g, int, int, int gz, int, long long i) const {
    if (g.potential != nullptr) {
      return __ldg(g.potential + i);
    }
    return harmonic_potential_from(plane, z_origin + static_cast<double>(gz) * g.box[2], g.lambda);
  }
};

/// Threads a block of the stencil kernels has at most (the sweep's and the one-slice kernels').
constexpr int kMaxStencilThreads = 256;

/// The frame rotating at g.omega: the magnetic Laplacian as magnetic_sum() forms it, V − ½Ω²ρ².
/// Neither depends on z, so a sweep's thread computes its cell's hops w e^{−iθ} once for all the
/// slices it walks (F complex numbers in registers spilled on cubic, FCC and cubic4 under the
/// sweep's register cap). They wait in the launch's shared memory, each thread its own column:
/// face f's at f, or with kBySlot (cubic4: 12 faces, 4 of them along z) at its hop slot, none for
/// kIdentityPhase, so that 8 of 12 take shared memory the sweep's L1 needs (at 12, the L1 hit rate
/// fell from 74% to 53%); the slot's lookup costs where faces are few. The hops are kept rounded
/// to Real, the precision the face sums are formed in (weighted_phase<Real>).
template <int MS, int F, class Real> struct RotatingFrame {
  using Hop = Packed<Real>;
  static constexpr bool kBySlot = F > 8;
  static_assert(F * kMaxStencilThreads * sizeof(Hop) <= 48 * 1024,
                "the hops must fit a launch's dynamic shared memory without opting in");
  const Hop* hop; ///< this thread's: hop[slot · kMaxStencilThreads]
  double centrifugal;
  Real weight_sum;

  /// The hops a thread keeps: g.hop_slots with kBySlot, else F.
  static int kept(const DeviceGrid& g) { return kBySlot ? g.hop_slots : F; }

  __device__ static RotatingFrame at(const DeviceGrid& g, int sx, int sy, int l) {
    extern __shared__ double2 hops[]; // kept(g) · kMaxStencilThreads Hops (launch_sweep)
    Hop* mine = reinterpret_cast<Hop*>(hops) + threadIdx.x;
#pragma unroll
    for (int f = 0; f < F; ++f) {
      const Face fc = face(g, f * MS + l);
      if (fc.weight == 0.0) {
        break; // padding: the face sums stop here too
      }
      const int slot = kBySlot ? fc.slot : f;
      if (slot != kIdentityPhase) {
        const BasicComplex<Real> h = convert<Real>(face_hop(g, sx, sy, l, fc));
        mine[slot * kMaxStencilThreads] = Hop{h.re, h.im};
      }
    }
    const double2 c = from_axis(g, sx, sy, l);
    return {mine, centrifugal_potential(g.omega, c.x, c.y),
            static_cast<Real>(__ldg(g.weight_sum + l))};
  }
  /// (w, w · 0) is weighted_phase(w, θ = 0), bit for bit: cos_sin(∓0) = (1, +0).
  __device__ BasicComplex<Real> add(BasicComplex<Real> sum, int f, int slot, double weight,
                                    BasicComplex<Real>, BasicComplex<Real> psi_j) const {
    BasicComplex<Real> w = convert<Real>(Complex{weight * 1.0, weight * 0.0});
    if (!kBySlot || slot != kIdentityPhase) {
      const Hop h = hop[(kBySlot ? slot : f) * kMaxStencilThreads];
      w = {h.x, h.y};
    }
    return add_hop(sum, w, psi_j);
  }
  __device__ BasicComplex<Real> total(BasicComplex<Real> sum, BasicComplex<Real> psi_i) const {
    return magnetic_sum(weight_sum, psi_i, sum);
  }
  __device__ double potential(const DeviceGrid& g, int sx, int sy, int gz, int l,
                              long long i) const {
    return potential_at_global(g, sx, sy, gz, l, i) + centrifugal;
  }
};

/// The same frame for a kernel that meets each cell once: the hops computed as the faces are met
/// (the same bits as RotatingFrame's), no shared memory.
template <int MS> struct RotatingCell {
  const DeviceGrid& g;
  int sx, sy, l;
  double centrifugal;

  __device__ static RotatingCell at(const DeviceGrid& g, int sx, int sy, int l) {
    const double2 c = from_axis(g, sx, sy, l);
    return {g, sx, sy, l, centrifugal_potential(g.omega, c.x, c.y)};
  }
  template <class Real>
  __device__ BasicComplex<Real> add(BasicComplex<Real> sum, int f, int, double, BasicComplex<Real>,
                                    BasicComplex<Real> psi_j) const {
    return add_hop(sum, convert<Real>(face_hop(g, sx, sy, l, face(g, f * MS + l))), psi_j);
  }
  template <class Real>
  __device__ BasicComplex<Real> total(BasicComplex<Real> sum, BasicComplex<Real> psi_i) const {
    return magnetic_sum(static_cast<Real>(__ldg(g.weight_sum + l)), psi_i, sum);
  }
  __device__ double potential(const DeviceGrid& grid, int x, int y, int gz, int local,
                              long long i) const {
    return potential_at_global(grid, x, y, gz, local, i) + centrifugal;
  }
};

/// A sweep's frame: its threads walk columns of cells, summing their faces in Real.
template <int MS, int F, bool ROTATES, class Real>
using FrameOf = std::conditional_t<ROTATES, RotatingFrame<MS, F, Real>, LabColumn>;
/// A one-slice kernel's frame: its threads meet one cell each.
template <int MS, bool ROTATES>
using CellFrameOf = std::conditional_t<ROTATES, RotatingCell<MS>, LabFrame>;

/// f(std::bool_constant<g rotates>): a kernel's frame chosen once per launch.
template <class Fn> void with_frame(const DeviceGrid& g, Fn&& f) {
  if (g.omega != 0.0) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

/// Σ_F w_F (ψ_i − ψ_j) of cell i = (sx, sy, sz, l) as `frame` sums it (LabFrame), the faces in the
/// table's order, ψ_j = 0 beyond the domain; p = ψ_i; in Real from ψ stored as S.
template <int MS, int F, class Real, class S, class Frame = LabFrame>
__device__ __forceinline__ BasicComplex<Real>
face_sum(const DeviceGrid& g, const BasicComplex<S>* psi, long long i, int sx, int sy, int sz,
         int l, BasicComplex<Real> p, const Frame& frame = {}) {
  const bool inner_row =
      sy > 0 && sy < g.sy - 1 && sz + g.z_offset > 0 && sz + g.z_offset < g.global_z - 1;
  BasicComplex<Real> sum{0, 0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const Face fc = face(g, f * MS + l);
    if (fc.weight != 0.0) {
      sum = frame.add(sum, f, fc.slot, fc.weight, p,
                      inside(g, fc, sx, sy, sz, inner_row)
                          ? convert<Real>(load_ro(psi + i + fc.delta))
                          : BasicComplex<Real>{0, 0});
    }
  }
  return frame.total(sum, p);
}

/// Cell (sx, sy, sz, l) of a one-row tiling's block, or false for a thread past the row's end.
struct CellIndex {
  int sx, sy, sz, l;
  long long i;
};
template <int MS>
__device__ __forceinline__ bool cell_of_thread(const DeviceGrid& g, const Tiling& t, int z_begin,
                                               CellIndex& c) {
  const int row = blockIdx.x / t.tiles_per_row;
  const int x0 = (blockIdx.x - row * t.tiles_per_row) * t.tile;
  const int tx = threadIdx.x / MS;
  c.l = threadIdx.x - tx * MS;
  c.sx = x0 + tx;
  c.sy = row % g.sy;
  c.sz = z_begin + row / g.sy;
  c.i = (static_cast<long long>(c.sz) * g.sy + c.sy) * g.sx * MS +
        static_cast<long long>(c.sx) * MS + c.l;
  return tx < t.tile && c.sx < g.sx;
}

} // namespace decgpe::cuda
