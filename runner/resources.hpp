#pragma once
// What a run needs from the machine, planned before anything per cell is allocated: the ranks it is
// split over, the memory check, measured slab sizes, and the backend on this rank's part.

#include "setup/case_setup.hpp"
#include "solvers/backend.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/scaleout/mpi_session.hpp"

#include <memory>
#include <mpi.h>
#include <stdexcept>
#include <string>

namespace decgpe::runner {

/// Rank 0 runs `action`; every rank learns whether it failed, and rank 0's message is thrown on
/// all of them.
template <class Action> void on_root(const scaleout::MpiSession& mpi, Action&& action) {
  int ok = 1;
  std::string error;
  if (mpi.rank() == 0) {
    try {
      action();
    } catch (const std::exception& e) {
      ok = 0;
      error = e.what();
    }
  }
  if (mpi.active()) {
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (ok == 0) {
    throw std::runtime_error(mpi.rank() == 0 ? error : "rank 0 failed");
  }
}

/// The ranks a run is split over: all of an MPI launcher's when there are several.
MPI_Comm run_comm(const scaleout::MpiSession& mpi);

/// Over several ranks, the slab backend on this rank's part of the set-up; else one process.
std::unique_ptr<Backend> make_run_backend(const std::string& name, const setup::RunSetup& setup);

/// Measured slab sizes where the case asks for them, or where the ranks' backends differ. A GPU
/// rank takes no more slices than its free memory holds.
setup::SlabBalance slab_balance(const setup::CaseConfig& c, const std::string& backend_name);

/// What a run of this case on `backend_name` holds with `cells` cells (this rank's).
MemoryNeed planned_memory(const setup::CaseConfig& c, const std::string& backend_name,
                          std::int64_t cells);

/// The memory check, once the cell count is known and before anything per cell is allocated.
setup::BeforeAllocating memory_check(const setup::CaseConfig& c, const std::string& backend_name,
                                     const scaleout::MpiSession& mpi);

} // namespace decgpe::runner
