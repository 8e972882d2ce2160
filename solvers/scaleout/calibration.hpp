#pragma once
// Hybrid ranks: when the ranks' backends differ (one rank drives a GPU, the others run OpenMP),
// even slabs leave the fast rank waiting at every halo exchange. A short calibration run measures
// each rank's throughput on a trial slab, and the slabs are sized in proportion to it (the
// distributed Trotter–Suzuki solver's hybrid kernel splits its domain between CPU and GPU the
// same way). The results record the rates and the sizes.

#include "solvers/backend_registry.hpp"
#include "solvers/problem.hpp"

#include <mpi.h>
#include <string_view>
#include <vector>

namespace decgpe::scaleout {

struct Calibration {
  std::vector<double> cells_per_second; ///< per rank, in rank order (the same on every rank)
  int trial_slices = 0;                 ///< z-slices of the trial slab
  long steps = 0;                       ///< leapfrog steps each rank timed
  /// per rank, the most z-slices its memory holds (a GPU's; INT_MAX where the host's decides)
  std::vector<int> most_slices;
};

/// Collective over `comm`: every rank times `steps`-long batches of leapfrog steps of its `local`
/// backend on a trial domain of `whole`'s x–y extent and `trial_slices` z-slices (no halos: the
/// arithmetic, not the messages), doubling the batch until it takes at least `seconds`.
/// `most_slices`: what this rank's memory holds, gathered into Calibration::most_slices.
Calibration calibrate(std::string_view local, const Problem& whole, MPI_Comm comm, int trial_slices,
                      int most_slices, double seconds = 0.2, const BackendTuning& tuning = {});

/// Whether the ranks of `comm` run backends whose vectors live in different memories (a GPU rank
/// beside CPU ranks). Collective.
bool backends_differ(std::string_view local, MPI_Comm comm);

} // namespace decgpe::scaleout
