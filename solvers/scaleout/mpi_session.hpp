#pragma once
// MPI for the scale-out backends. decgpe initialises MPI only when a launcher (mpirun, srun)
// started it, so a single process without one runs as before.

#include <cstdint>
#include <mpi.h>

namespace decgpe::scaleout {

class MpiSession {
public:
  /// Initialises MPI if this process was started by an MPI launcher.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  bool active() const { return active_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Ends every rank with `code`: for an error seen by some ranks only, so that none waits forever.
  [[noreturn]] void abort(int code) const;
  /// Whether every rank has called this within `seconds` (an error or a stop that each saw, so
  /// that each may return its exit code and MPI finalise cleanly, without abort(): mpirun -q then
  /// adds nothing to the run's line). False where a rank has not (it failed alone, or waits in a
  /// collective): then call abort(). Apart from the ranks' other communication (a communicator of
  /// its own), so it may be called wherever a rank stands.
  bool all_leave_within(double seconds) const;

private:
  MPI_Comm leave_comm_ = MPI_COMM_NULL;
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// This rank's index among the ranks on its node, for picking a GPU.
int node_local_rank(MPI_Comm comm);
/// The sum of `mine` over the ranks of `comm` that share this rank's node (and its memory).
/// Collective over `comm`.
std::uint64_t sum_on_node(std::uint64_t mine, MPI_Comm comm);

} // namespace decgpe::scaleout
