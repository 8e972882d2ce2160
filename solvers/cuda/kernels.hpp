#pragma once
// Host-callable launchers of the device kernels (defined in the .cu files). Those on ψ are
// templated on a precision's types (solvers/precision.hpp), explicitly instantiated for the three;
// the wavefront and the temporal blocking step in double only.

#include "solvers/backend.hpp"
#include "solvers/cuda/cuda_backend.hpp"
#include "solvers/cuda/device_tables.hpp"
#include "solvers/precision.hpp"
#include "solvers/vortex_flux.hpp"

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>
#include <string>
#include <string_view>
#include <vector>
#include <vector_types.h>

namespace decgpe::cuda {

using DoubleTypes = PrecisionTypes<Precision::double_>;
using SingleTypes = PrecisionTypes<Precision::single>;
using MixedTypes = PrecisionTypes<Precision::mixed>;

/// What a vector of the precision Types holds per cell.
template <class Types> using Stored = BasicComplex<typename Types::Store>;

/// MACRO(Types) for each precision: the launchers' explicit instantiations in the .cu files.
#define DECGPE_FOR_EACH_PRECISION(MACRO) MACRO(DoubleTypes) MACRO(SingleTypes) MACRO(MixedTypes)

/// The plain kernel's block: y-rows per block × threads per block; or the sweep (step_kernels.cu):
/// blocks that walk `slices` z-slices, prefetch `ahead` slices into L2, fit `min_blocks` to an SM
/// (the register cap) and, `by_faces`, group cells by face count.
struct PlainShape {
  int rows, threads;
  bool sweep = false;
  int slices = 1, ahead = 0, min_blocks = 4;
  bool by_faces = false;
  bool pairs = false;     ///< the leapfrog's threads take two instances (Tiling::pairs)
  bool fits_grid = false; ///< "sweep": one slice a block where the grid is too small for it, and
                          ///< the other passes take passes_shape()
  /// The leapfrog's staged sweep (staged_sweep.cuh): tiles of tile_x × rows instances.
  bool staged = false;
  int tile_x = 0;
};
/// "sweep" (1x256z8a2b4f; leapfrog_shape() gives the leapfrog five blocks an SM in single and
/// mixed, and pairs of instances; make_leapfrog_tiling() a staged sweep on cubic, cubic4, BCC and
/// FCC),
/// "1x512", "1x256", "2x256", or "1x256" with sweep settings (z<slices>a<ahead>b<3-5>f, and p for
/// pairs: for tuning a new GPU), or the staged sweep "t<tile x>x<rows>z<slices>a<ahead>b<4|6|8>";
/// throws std::invalid_argument otherwise.
PlainShape parse_plain_shape(std::string_view shape);

/// The leapfrog's block for `shape` in a precision and frame: "sweep" takes five blocks an SM in
/// single and mixed precision in the lab frame, four elsewhere, and there pairs of instances
/// (make_tiling takes them on a lattice of one cell an instance); a shape given in full as it is
/// but in double or a rotating frame, which take no pairs.
PlainShape leapfrog_shape(PlainShape shape, Precision precision, bool rotates);

/// The leapfrog's tiling for a grid in a precision on a lattice: a staged sweep given in full as
/// it is (std::invalid_argument where it does not fit: staged_unfit); under "sweep" in the lab
/// frame the staged sweep where it measured faster (cubic, cubic4, BCC, FCC in single and mixed)
/// and fits the grid; else make_tiling of leapfrog_shape.
Tiling make_leapfrog_tiling(const DeviceGrid& g, const PlainShape& shape, Precision precision,
                            std::string_view lattice, int sms);
/// The tiling of the stencil passes for a grid (`shape`: the block; a sweep on a grid too small
/// for it on `sms` multiprocessors takes one slice a block).
Tiling make_tiling(const DeviceGrid& g, PlainShape shape, int sms);
/// The one-row tiling of the other stencil kernels and the diagnostics: at most 256 threads.
Tiling make_cell_tiling(const DeviceGrid& g);

/// The block of the stencil passes other than the leapfrog step (M·ψ, the RK4 stages, the
/// Chebyshev terms) under "sweep" for a lattice: a calibration (docs/gpu.md).
/// In a rotating frame they sweep on every lattice, a column's phases computed once for its slices.
PlainShape passes_shape(std::string_view lattice, bool rotates);
/// Those passes' tiling when the leapfrog's block is `shape`: passes_shape() under "sweep", else
/// `shape`; one slice a block (make_cell_tiling) where it does not sweep.
Tiling make_passes_tiling(const DeviceGrid& g, PlainShape shape, std::string_view lattice, int sms);
/// Why the staged sweep's tiling t cannot step g in values of `value_bytes` (rows of 8-byte values
/// that split a 16-byte word, more than four copies a thread a slice), "" where it can.
std::string staged_unfit(const Tiling& t, const DeviceGrid& g, int value_bytes);
/// "1x256z<slices>a<ahead>b<blocks>[f]" for a sweeping tiling, else "one slice a block".
std::string describe(const Tiling& t);

/// One leapfrog step for the z-slices [z_begin, z_end): out ← out − 2iΔt M(ψ) ψ, 2Δt = g.two_dt.
template <class Types>
void launch_step(const Tiling& t, const DeviceGrid& g, const Stored<Types>* psi, Stored<Types>* out,
                 int z_begin, int z_end, cudaStream_t stream);

/// The values of `text` written as each of `keys` in order followed by 1 to `digits` digits, each
/// value at least 1, and nothing else ("s1l4r4b8" for the keys "slrb"); empty where it is not so.
std::vector<int> keyed_values(std::string_view text, std::string_view keys, int digits);

/// The leapfrog's wavefront (step_kernels.cu): steps_per_sweep steps in one launch, over units of
/// `slab` z-slices × `rows` y-rows, each step `lag` slabs (and a unit) behind the one before it,
/// at most `blocks` blocks per SM; "s<slab>l<lag>r<rows>b<blocks>" (for tuning a new GPU; anything
/// else throws std::invalid_argument).
struct WavefrontShape {
  int slab = 1;
  int lag = 1;
  int rows = 1;
  int blocks = 8;
};
WavefrontShape parse_wavefront(std::string_view text);

/// One wavefront launch's geometry and device memory.
struct Wavefront {
  int steps;          ///< leapfrog steps in the launch
  int slab;           ///< z-slices per slab
  int slabs;          ///< ⌈Sz / slab⌉
  int rows;           ///< y-rows a unit
  int bands;          ///< ⌈Sy / rows⌉: unit u = slab · bands + band
  int blocks;         ///< the launch's grid (wavefront_blocks)
  const int2* order;  ///< [steps · units]: (step, unit) in the order they are dealt
  unsigned* counters; ///< [1 + steps · units]: tickets dealt, then tiles done per (step, unit)
};
/// The (step, unit) pairs in the order a wavefront deals them: front by front, step j of front f
/// on unit f − (lag · bands + 1) · j.
std::vector<int2> wavefront_order(int steps, int slabs, int bands, int lag);
/// The grid of w's launches: at most `per_sm` blocks per SM as the occupancy allows, on `sms`
/// SMs, and no more than w's tickets (once per backend: an occupancy query is no launch's work).
int wavefront_blocks(const Tiling& t, const DeviceGrid& g, const Wavefront& w, int per_sm, int sms);
/// w.steps leapfrog steps from (older, newer) (the roles swap after each, as in launch_step's
/// sequence), bitwise those single steps; `t` is a sweep tiling with t.slices = w.slab. Resets
/// w.counters on the stream first.
void launch_leapfrog_wavefront(const Tiling& t, const DeviceGrid& g, const Wavefront& w,
                               Complex* older, Complex* newer, cudaStream_t stream);

/// The leapfrog's temporal blocking (temporal_blocking.cu): k steps in one pass over memory, a
/// block a tile of tile_x × tile_y instances through a chunk of `slices` z-slices, "x<>y<>z<>".
struct BlockedShape {
  int tile_x, tile_y, slices;
};
BlockedShape parse_blocked(std::string_view text);

constexpr int kBlockedThreads = 256;
/// The temporal blocking takes 2 to kMostBlockedSteps steps a launch, on lattices of at most
/// kMostBlockedCells cells an instance (larger instances' grown tiles do not fit shared memory).
constexpr int kMostBlockedSteps = 4;
constexpr int kMostBlockedCells = 12;

/// One temporal blocking launch's geometry: tiles grown by `steps` instances a side (ext_x ×
/// ext_y), `cells` cells a slice of one, in shared memory the slices of every level kept.
struct Blocking {
  int steps;
  int tile_x, tile_y, slices;
  int ext_x, ext_y, cells;
  int tiles_x, tiles_y, chunks;
  std::size_t shared_bytes;
};
Blocking make_blocking(const DeviceGrid& g, BlockedShape shape, int steps);
/// The most dynamic shared memory a block may opt in to on the current device.
std::size_t blocked_shared_limit();
/// b.steps leapfrog steps from (older, newer), bitwise those single steps: level k − 1 into
/// `previous`, level k into `last` (neither may be older or newer: the launch reads them to the
/// end).
void launch_leapfrog_blocked(const DeviceGrid& g, const Blocking& b, const Complex* older,
                             const Complex* newer, Complex* previous, Complex* last,
                             cudaStream_t stream);

/// Two RK4 stages in one pass (rk4_blocking.cu), on the temporal blocking's tiles at k = 2: the
/// first pair (stages 0 and 1) from ψ = in into acc_out and next (y₂); the second (stages 2 and 3)
/// from in = y₂, base = ψ and acc_in into next, the step's ψ. τ: the first stage's acc_tau and
/// next_tau, the second's acc_tau and (first pair) next_tau. Bitwise the four stage passes; `next`
/// and `acc_out` may not be read by the pass (the tiles' rims are read to the end).
struct Rk4Pair {
  bool second;
  const Complex* in;
  const Complex* base;
  const Complex* acc_in;
  Complex* acc_out;
  Complex* next;
  double tau[4];
};
void launch_rk4_pair(const DeviceGrid& g, const Blocking& b, const Rk4Pair& v, cudaStream_t stream);

/// out ← M(in)·in on the z-slices [z_begin, z_end) (cell tiling).
template <class Types>
void launch_apply_m(const Tiling& t, const DeviceGrid& g, const Stored<Types>* in,
                    Stored<Types>* out, int z_begin, int z_end, cudaStream_t stream);

/// The vectors of one RK4 stage (Rk4Stage's, resolved to device memory; base unused at stage 3).
template <class Types> struct Rk4Vectors {
  const Stored<Types>* input;
  const Stored<Types>* base;
  Stored<Types>* acc;
  Stored<Types>* next;
};
template <class Types>
void launch_rk4_stage(const Tiling& t, const DeviceGrid& g, const Rk4Stage& s, Rk4Vectors<Types> v,
                      int z_begin, int z_end, cudaStream_t stream);

/// One colour of a Trotter–Suzuki sweep on the z-slices [z_begin, z_end) (cell tiling): `faces` is
/// the colour's [8 · ms] slice of FaceColouring::face, `k` face_rotations() face-major
/// ([2 (f · ms + l) + boundary]); then the phase exp(−i phase_tau (V + g|ψ|²)) when it is ≠ 0.
template <class Types>
void launch_rotate_faces(const Tiling& t, const DeviceGrid& g, const Stored<Types>* in,
                         Stored<Types>* out, const std::int8_t* faces, const Complex* k,
                         double phase_tau, int z_begin, int z_end, cudaStream_t stream);

/// PolynomialTerm's update on the z-slices [z_begin, z_end); prev may be null.
template <class Types> struct PolynomialVectors {
  const Stored<Types>* in;
  const Stored<Types>* prev;
  Stored<Types>* out;
  Stored<Types>* acc;
};
template <class Types>
void launch_polynomial_term(const Tiling& t, const DeviceGrid& g, const PolynomialTerm& term,
                            PolynomialVectors<Types> v, int z_begin, int z_end,
                            cudaStream_t stream);

/// out ← a x + b y over `count` values.
template <class Types>
void launch_axpby(long long count, Stored<Types>* out, Complex a, const Stored<Types>* x, Complex b,
                  const Stored<Types>* y, cudaStream_t stream);
/// ψ ← exp(−iτ(V + g|ψ|²)) ψ on every stored slice (cell tiling over all of them).
template <class Types>
void launch_rotate_phase(const Tiling& t, const DeviceGrid& g, Stored<Types>* psi, double tau,
                         cudaStream_t stream);

/// Diagnostics of the owned slices into *result (device memory), of the stored values widened to
/// FP64 in every precision; `partials` holds one Sums per block of diagnostics_blocks(t, g);
/// `previous` may be null (no invariant term). Sums is CellSums, or RotatingSums in a rotating
/// frame: the frame's sums and the lab's (Diagnostics::from(RotatingSums)).
template <class Value, class Sums>
void launch_diagnostics(const Tiling& t, const DeviceGrid& g, const Value* previous,
                        const Value* psi, const Value* reference, Sums* partials, Sums* result,
                        cudaStream_t stream);
long diagnostics_blocks(const Tiling& t, const DeviceGrid& g);

/// The flux of every edge instance of slices [z_begin, z_end) into flux_of, in instance order
/// (e + E·(sx + Sx·(sy + Sy·(z − z_begin)))), 0 where a ring cell has V ≥ potential_cut (V of
/// `grid`, as the stepping kernels compute it; +∞: every ring) or lies outside the domain, and how
/// many are not 0 into *found (device memory). Value: Complex or ComplexFloat, read in FP64.
template <class Value>
void launch_vortex_flux(const RingGrid& g, const std::int32_t* ring_begin, const RingEntry* rings,
                        int edges, const DeviceGrid& grid, const Value* psi, int z_begin, int z_end,
                        double potential_cut, std::int8_t* flux_of, unsigned long long* found,
                        cudaStream_t stream);
/// The scratch launch_select_pierced needs for `instances` edge instances.
std::size_t pierced_select_bytes(long long instances);
/// out ← the pierced edges among flux_of[0, instances) in instance order, which is edge-id order
/// (instance t is edge first_id + t), and their count into *selected (device memory). out has
/// room for launch_vortex_flux's *found.
void launch_select_pierced(const std::int8_t* flux_of, long long instances, long long first_id,
                           PiercedEdge* out, unsigned long long* selected, void* scratch,
                           std::size_t scratch_bytes, cudaStream_t stream);
/// StepMaxima of the owned slices into *result (device memory); `partials` holds one StepSums per
/// block of diagnostics_blocks(t, g); `y` may be null (zero). In FP64, as launch_diagnostics.
template <class Value>
void launch_step_maxima(const Tiling& t, const DeviceGrid& g, const Value* x, const Value* y,
                        double density_floor, StepSums* partials, StepSums* result,
                        cudaStream_t stream);

} // namespace decgpe::cuda
