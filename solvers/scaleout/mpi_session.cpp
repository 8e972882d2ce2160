#include "solvers/scaleout/mpi_session.hpp"

#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace decgpe::scaleout {

namespace {

bool started_by_launcher() {
  for (const char* var :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"}) {
    if (std::getenv(var) != nullptr) {
      return true;
    }
  }
  return false;
}

} // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!started_by_launcher()) {
    return;
  }
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (active_) {
    MPI_Finalize();
  }
}

void MpiSession::abort(int code) const {
  if (active_) {
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::exit(code);
}

namespace {

/// This rank's index on its node and the number of ranks there.
std::pair<int, int> place_on_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0, size = 1;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return {rank, size};
}

} // namespace

int node_local_rank(MPI_Comm comm) {
  return place_on_node(comm).first;
}

int ranks_on_node(MPI_Comm comm) {
  return place_on_node(comm).second;
}

} // namespace decgpe::scaleout
