#pragma once
// Device-side per-cell access: 16-byte loads and stores of ψ, the potential, and the face sum with
// Dirichlet zeros. The arithmetic is solvers/cell_arithmetic.hpp's, in the CPU reference's order;
// built without FMA contraction (-fmad=false), the GPU state is bitwise identical to `reference`.

#include "solvers/cell_arithmetic.hpp"
#include "solvers/cuda/device_tables.hpp"

namespace decgpe::cuda {

__device__ __forceinline__ Complex load_ro(const Complex* p) {
  const double2 v = __ldg(reinterpret_cast<const double2*>(p));
  return {v.x, v.y};
}
__device__ __forceinline__ Complex load(const Complex* p) {
  const double2 v = *reinterpret_cast<const double2*>(p);
  return {v.x, v.y};
}
__device__ __forceinline__ void store(Complex* p, Complex z) {
  *reinterpret_cast<double2*>(p) = make_double2(z.re, z.im);
}

/// V at cell l of instance (sx, sy) in global z-slice gz, with the host's position arithmetic:
/// (origin + centre) + s · box.
__device__ __forceinline__ double potential_at_global(const DeviceGrid& g, int sx, int sy, int gz,
                                                      int l, long long i) {
  if (g.potential != nullptr) {
    return __ldg(g.potential + i);
  }
  const double x = (g.origin[0] + __ldg(g.centre + 3 * l)) + static_cast<double>(sx) * g.box[0];
  const double y = (g.origin[1] + __ldg(g.centre + 3 * l + 1)) + static_cast<double>(sy) * g.box[1];
  const double z = (g.origin[2] + __ldg(g.centre + 3 * l + 2)) + static_cast<double>(gz) * g.box[2];
  return harmonic_potential(x, y, z, g.lambda);
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
};

__device__ __forceinline__ Face face(const DeviceGrid& g, int e) {
  const double2 raw = __ldg(reinterpret_cast<const double2*>(g.faces + e));
  const long long packed = __double_as_longlong(raw.y); // delta in the low word, code in the high
  const int delta = static_cast<int>(packed & 0xffffffffLL);
  const int code = static_cast<int>(packed >> 32);
  return {
      raw.x, code & 0xffff, ((code >> 16) & 3) - 1, ((code >> 18) & 3) - 1, ((code >> 20) & 3) - 1,
      delta};
}

/// The weight and index offset of entry e alone: all a cell needs whose neighbours are all inside.
struct FaceWeight {
  double weight;
  int delta;
};

__device__ __forceinline__ FaceWeight face_weight(const DeviceGrid& g, int e) {
  const double2 raw = __ldg(reinterpret_cast<const double2*>(g.faces + e));
  return {raw.x, static_cast<int>(__double_as_longlong(raw.y) & 0xffffffffLL)};
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

/// Σ_F w_F (ψ_i − ψ_j) of cell i = (sx, sy, sz, l) in the faces' table order, ψ_j = 0 beyond the
/// domain; p = ψ_i.
template <int MS, int F>
__device__ __forceinline__ Complex face_sum(const DeviceGrid& g, const Complex* psi, long long i,
                                            int sx, int sy, int sz, int l, Complex p) {
  const bool inner_row =
      sy > 0 && sy < g.sy - 1 && sz + g.z_offset > 0 && sz + g.z_offset < g.global_z - 1;
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
  return lap;
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
