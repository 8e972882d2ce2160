#include "runner/resources.hpp"

#include "setup/ground_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/scaleout/slab_backend.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stationary_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace decgpe::runner {

using setup::CaseConfig;
using setup::RunSetup;

namespace {

/// What a rank of `cells` cells holds, for the memory check.
RunShape run_shape(const CaseConfig& c, const BackendEntry& entry, std::int64_t cells) {
  const SchemeEntry& scheme = find_scheme(c.scheme);
  const bool given_previous =
      c.start == setup::LeapfrogStart::paper && !c.lattice_stationary; // as the set-up samples
  int vectors = scheme.peak_vectors - (given_previous ? scheme.start_vectors : 0) +
                (c.adaptive ? scheme.adaptive_vectors : 0);
  if (c.lattice_stationary) { // the solver's vectors come and go before the scheme's
    StationaryStateSettings solver;
    solver.krylov_dimension = c.stationary_krylov;
    vectors = std::max(vectors, stationary_state_vectors(solver) + 2);
  }
  if (c.initial_kind ==
      setup::InitialKind::ground_state) { // ψ and the relaxation's, before the scheme's
    vectors = std::max(vectors, setup::kGroundStateVectors + 1);
  }
  return {cells,
          vectors,
          scheme.takes_previous_level ? 2 : 1,
          given_previous,
          c.potential_kind == setup::PotentialKind::tabulated,
          entry.memory,
          value_bytes(c.precision)};
}

} // namespace

/// The ranks a run is split over: all of an MPI launcher's when there are several.
MPI_Comm run_comm(const scaleout::MpiSession& mpi) {
  return mpi.active() && mpi.size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
}

/// The backend's tunables as the case sets them.
BackendTuning backend_tuning(const CaseConfig& c) {
  return {c.backend_tuning, c.halo_depth};
}

/// Over several ranks, the slab backend on this rank's part of the set-up; else one process.
std::unique_ptr<Backend> make_run_backend(const std::string& name, const RunSetup& setup) {
  const BackendTuning tuning = backend_tuning(setup.config);
  if (!setup.layout.distributed()) {
    return make_backend(name, setup.problem, nullptr, tuning);
  }
  return scaleout::make_slab_backend(name, setup.problem, setup.layout, tuning);
}

/// Measured slab sizes where the case asks for them, or where the ranks' backends differ. A GPU
/// rank takes no more slices than its free memory holds.
setup::SlabBalance slab_balance(const CaseConfig& c, const std::string& backend_name) {
  return [&c, backend_name](const Problem& whole) -> std::optional<scaleout::Calibration> {
    if (c.slab_balance == setup::SlabBalanceMode::even ||
        (c.slab_balance == setup::SlabBalanceMode::automatic &&
         !scaleout::backends_differ(backend_name, MPI_COMM_WORLD))) {
      return std::nullopt;
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    scaleout::bind_device(backend_name, MPI_COMM_WORLD);
    const BackendEntry& entry = backend_entry(backend_name);
    int most = std::numeric_limits<int>::max();
    if (entry.memory != MemorySpace::host) { // what fits beside the fixed part
      const auto need = [&](std::int64_t slices) {
        return static_cast<double>(
            memory_need(run_shape(c, entry, slices * whole.grid.slice_cells())).device);
      };
      const double per_slice = std::max(need(1) - need(0), 1.0);
      const double room = static_cast<double>(entry.free_bytes()) * 0.95 - need(0);
      const int halos = 2 * c.halo_depth.value_or(1);
      most = static_cast<int>(
          std::clamp(std::floor(room / per_slice) - halos, 0.0, static_cast<double>(most)));
    }
    const BackendTuning tuning = backend_tuning(c);
    return scaleout::calibrate(backend_name, whole, MPI_COMM_WORLD,
                               std::min(8, whole.grid.size[2] / ranks), most, 0.2, tuning);
  };
}

/// The memory check, once the cell count is known and before anything per cell is allocated.
MemoryNeed planned_memory(const CaseConfig& c, const std::string& backend_name,
                          std::int64_t cells) {
  return memory_need(run_shape(c, backend_entry(backend_name), cells));
}

setup::BeforeAllocating memory_check(const CaseConfig& c, const std::string& backend_name,
                                     const scaleout::MpiSession& mpi) {
  return [&c, backend_name, distributed = mpi.active()](std::int64_t cells) {
    const BackendEntry& entry = backend_entry(backend_name);
    MemoryNeed need = memory_need(run_shape(c, entry, cells));
    if (distributed) { // the node's ranks share its memory; their slabs and backends may differ
      need.host = scaleout::sum_on_node(need.host, MPI_COMM_WORLD);
    }
    const bool device = entry.memory != MemorySpace::host;
    check_memory(need, free_host_memory(),
                 device && entry.unavailable().empty() ? entry.free_bytes() : ~0ULL);
  };
}

} // namespace decgpe::runner
