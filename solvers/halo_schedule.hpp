#pragma once
// Deep halos (communication avoiding). A slab stores k halo slices towards each neighbouring slab
// (Grid::halo_depth()); an exchange fills all k of a vector, and each stencil kernel then computes,
// besides its owned slices, the halo slices whose inputs are still current: the current region
// shrinks by one slice per stencil kernel, and the next exchange of that vector comes k kernels
// later. The schedule tracks which local slices of each vector are current and plans each stencil
// kernel: the vectors to exchange first, the slices computed while the exchange is in flight (they
// read no halo slice and write no slice being sent) and those computed after it. Backends run the
// plan; the per-cell arithmetic is the whole domain's, so the state is bitwise the same for every
// k. The schedule is host bookkeeping only (a few integers per vector).

#include "solvers/backend.hpp"
#include "solvers/grid.hpp"

#include <array>
#include <initializer_list>
#include <vector>

namespace decgpe {

/// Local z-slices [begin, end).
struct SliceRange {
  int begin = 0, end = 0;
  bool empty() const { return end <= begin; }
  bool operator==(const SliceRange&) const = default;
};

/// What a stencil kernel reads and writes: its input read at neighbours, those read at the cell
/// only, and its outputs (kNoVector: none). Written once per kernel here, for every backend.
struct KernelAccess {
  VectorId stencil_input = kNoVector;
  std::array<VectorId, 2> pointwise{kNoVector, kNoVector};
  std::array<VectorId, 2> outputs{kNoVector, kNoVector};
};
KernelAccess access(const Rk4Stage& s);
KernelAccess access(const PolynomialTerm& t);
KernelAccess access(const FaceSweep& s);
/// apply_m: out ← M(in)·in.
KernelAccess apply_m_access(VectorId in, VectorId out);
/// One leapfrog step: older ← older − 2iΔt M(newer)·newer.
KernelAccess leapfrog_access(VectorId older, VectorId newer);
/// The diagnostics: ½Lψ reads `current` at neighbours (writes nothing).
KernelAccess diagnostics_access(VectorId current, VectorId previous, VectorId reference);
/// The vortex flux: ψ read at the rings about the edges, within one slice like a stencil.
KernelAccess vortex_flux_access(VectorId psi);

/// How a backend runs one stencil kernel on a slab.
struct StencilPlan {
  std::vector<VectorId> exchange;  ///< begin() their halo exchange before `during`
  SliceRange during;               ///< computed while the exchange is in flight (or at once)
  std::array<SliceRange, 2> after; ///< computed once it is complete (empty without one)
};

class HaloSchedule {
public:
  explicit HaloSchedule(const Grid& slab);

  /// A new vector: its values are unset, and whatever they are, every slice holds them.
  void created(VectorId v);
  /// Values set from the host: only the owned slices are trusted (a state downloaded earlier has
  /// halo slices that were not current), so its first stencil kernel exchanges them.
  void uploaded(VectorId v);
  /// Plans a stencil kernel; its outputs are then current on the slices it computes.
  StencilPlan stencil(const KernelAccess& kernel);
  /// Of `steps` leapfrog steps from (older, newer) (the roles swapping after each), how many to
  /// take singly before a launch can take them all: 0 where no step but the first exchanges, else
  /// the steps before the first later one that does (a launch then starts at that exchange).
  int leapfrog_singles(VectorId older, VectorId newer, int steps) const;
  /// Plans one launch of `steps` leapfrog steps that computes every stored slice (the temporal
  /// blocking), where leapfrog_singles() is 0: the first step's exchanges, made before the launch
  /// (`after` then holds the stored slices; `during` does without one). The vectors are then
  /// current where the single steps would leave them: the launch's levels equal theirs there.
  StencilPlan leapfrog_launch(VectorId older, VectorId newer, int steps);
  /// A pointwise kernel over every stored slice: `out` is current where every input is.
  void pointwise(VectorId out, std::initializer_list<VectorId> inputs);
  /// The slices where v is current.
  SliceRange current(VectorId v) const;

  bool operator==(const HaloSchedule&) const = default;

private:
  SliceRange& at(VectorId v);
  /// The slices a stencil kernel can compute from input current on `r`: one fewer towards each
  /// neighbouring slab (at the domain's faces ψ = 0 beyond, which is always current).
  SliceRange reach(SliceRange r) const;
  SliceRange computable(const KernelAccess& kernel) const;

  SliceRange stored_, owned_;
  int depth_ = 0;
  bool lower_ = false, upper_ = false; ///< neighbouring slabs below / above
  std::vector<SliceRange> current_;    ///< by VectorId
};

} // namespace decgpe
