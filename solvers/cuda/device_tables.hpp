#pragma once
// Plain-data views shared by the host side (cuda_backend.cpp) and the kernels (*.cu). Tables are
// face-major, [f * ms + l], so that a warp's threads (consecutive l) read consecutive entries.

#include "solvers/complex.hpp"

#include <cstdint>

namespace decgpe::cuda {

/// One stencil entry in 16 bytes, so a thread fetches it with a single 128-bit load.
struct alignas(16) FaceEntry {
  double weight; ///< |F|/(|E*||B|) at scale h; 0 for padding (rows shorter than the most faces)
  std::int32_t delta; ///< global index offset to the neighbour
  std::int32_t code;  ///< neighbour local index | (dx+1) << 16 | (dy+1) << 18 | (dz+1) << 20
                      ///< | hop slot << 22 (kIdentityPhase where the neighbour shares (x, y))
};

/// The hop slot of a face whose neighbour has the cell's own (x, y): θ = Ω (x y − x y) = 0
/// exactly, so e^{−iθ} = (1, +0) with no cos_sin and nothing kept.
constexpr int kIdentityPhase = 31;

struct DeviceGrid {
  int sx, sy, sz;             ///< S, with sz the slices stored (a slab's include its halo slices)
  int z_offset;               ///< global index of stored slice 0
  int global_z;               ///< Sz of the whole domain: the Dirichlet faces are its
  int owned_begin, owned_end; ///< stored slices this rank updates and sums
  int ms, max_faces;
  double origin[3];
  double box[3];
  const FaceEntry* faces;   ///< [max_faces * ms], face-major
  const double* centre;     ///< [3 * ms]: circumcentre x, y, z per local index
  const double* volume;     ///< [ms]: |B| per local index
  const double* weight_sum; ///< [ms]: Σ_F weight, the Laplacian's diagonal
  const double* potential;  ///< tabulated V per cell, or nullptr for the harmonic trap
  const int* by_faces;      ///< [ms]: local indices, those with the most faces first
  int wide_cells;           ///< cells of an instance with the most faces
  double lambda;
  double g;
  double two_dt; ///< the leapfrog kernels' 2Δt, set per launch
  /// The rotating frame (Rotation): Ω, 0 in the lab frame, and the axis's (x0, y0).
  double omega;
  double axis[2];
  /// The most faces of a cell whose neighbour is off its (x, y): the w e^{−iθ} a rotating sweep
  /// keeps a thread where it keeps them by slot (RotatingFrame::kBySlot).
  int hop_slots;
};

/// Launch geometry shared by every kernel: a block is a tile of `tile` consecutive structure
/// instances of one (y, z) row, one thread per dual 0-cell; rows [z_begin, z_end) × Sy are covered
/// by tiles_per_row × rows blocks.
struct Tiling {
  int tile;              ///< structure instances per block
  int threads;           ///< tile · ms rounded up to a whole warp
  int tiles_per_row;     ///< ⌈Sx / tile⌉
  int rows;              ///< consecutive y-rows per block (each thread has a cell in each)
  int row_groups;        ///< ⌈Sy / rows⌉
  bool sweep = false;    ///< the leapfrog's sweep (step_kernels.cu) instead of one slice per block
  int slices = 1;        ///< z-slices a sweeping block walks through
  int ahead = 0;         ///< slices of ψⁿ and ψⁿ⁻¹ a sweeping block prefetches into L2
  int min_blocks = 4;    ///< the sweep's blocks per SM (its register cap)
  bool by_faces = false; ///< the sweep's threads take the cells grouped by face count
  bool pairs = false;    ///< the leapfrog sweep's threads take two consecutive instances of one
                         ///< cell each (tile and Sx even): 16-byte accesses of 8-byte values
  bool staged = false;   ///< the leapfrog's staged sweep (staged_sweep.cuh): blocks of tile × rows
                         ///< instances walking `slices`, ψ's slices copied to shared memory
};

} // namespace decgpe::cuda
