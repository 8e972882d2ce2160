#include "solvers/scaleout/mpi_session.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

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
  MPI_Comm_dup(MPI_COMM_WORLD, &leave_comm_);
}

MpiSession::~MpiSession() {
  if (active_) {
    MPI_Comm_free(&leave_comm_);
    MPI_Finalize();
  }
}

bool MpiSession::all_leave_within(double seconds) const {
  if (!active_ || size_ == 1) {
    return true;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(leave_comm_, &request);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= end) {
      return false; // abort() follows, which ends the pending barrier with the job
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void MpiSession::abort(int code) const {
  if (active_) {
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::exit(code);
}

namespace {

/// The ranks of `comm` that share this rank's node (free it with MPI_Comm_free).
MPI_Comm node_of(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  return node;
}

} // namespace

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node = node_of(comm);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

std::uint64_t sum_on_node(std::uint64_t mine, MPI_Comm comm) {
  MPI_Comm node = node_of(comm);
  std::uint64_t sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, node);
  MPI_Comm_free(&node);
  return sum;
}

} // namespace decgpe::scaleout
