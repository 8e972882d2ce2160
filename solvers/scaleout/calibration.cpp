#include "solvers/scaleout/calibration.hpp"

#include <algorithm>
#include <chrono>

namespace decgpe::scaleout {

namespace {

/// `whole` cut to its middle `slices` z-slices, as a domain of its own.
Problem trial_problem(const Problem& whole, int slices) {
  Problem p;
  p.grid = whole.grid;
  p.grid.size[2] = slices;
  p.grid.global_z = slices;
  p.grid.z_offset = 0;
  p.grid.owned_begin = 0;
  p.grid.owned_end = slices;
  p.potential.lambda = whole.potential.lambda;     // harmonic: a table's values do not change speed
  p.potential.rotation = whole.potential.rotation; // the rotating kernels run slower
  p.g = whole.g;
  p.precision = whole.precision; // single moves half the bytes
  return p;
}

} // namespace

Calibration calibrate(std::string_view local, const Problem& whole, MPI_Comm comm, int trial_slices,
                      int most_slices, double seconds, const BackendTuning& tuning) {
  Calibration c;
  c.trial_slices = std::clamp(trial_slices, 1, whole.grid.global_z);
  const Problem p = trial_problem(whole, c.trial_slices);
  const std::unique_ptr<Backend> backend = make_backend(local, p, nullptr, tuning);
  const VectorId a = backend->create_vector(), b = backend->create_vector();
  const std::vector<Complex> state(static_cast<std::size_t>(p.grid.cells()), Complex{1e-2, 0.0});
  backend->upload(a, state);
  backend->upload(b, state);
  const double dt = 1e-4;
  backend->leapfrog_steps(a, b, dt, 2); // warm up: first-touch, tables, graphs
  backend->synchronize();
  double elapsed = 0.0;
  for (c.steps = 2; c.steps < (1L << 20); c.steps *= 2) {
    const auto start = std::chrono::steady_clock::now();
    backend->leapfrog_steps(a, b, dt, c.steps);
    backend->synchronize();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= seconds) {
      break;
    }
  }
  const double mine =
      static_cast<double>(p.grid.cells()) * static_cast<double>(c.steps) / std::max(elapsed, 1e-9);
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  c.cells_per_second.resize(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, c.cells_per_second.data(), 1, MPI_DOUBLE, comm);
  c.most_slices.resize(static_cast<std::size_t>(ranks));
  MPI_Allgather(&most_slices, 1, MPI_INT, c.most_slices.data(), 1, MPI_INT, comm);
  return c;
}

bool backends_differ(std::string_view local, MPI_Comm comm) {
  const BackendEntry& entry = backend_entry(local);
  int device = entry.memory == MemorySpace::cuda_device ? 1 : 0;
  int lowest = device, highest = device;
  MPI_Allreduce(&device, &lowest, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&device, &highest, 1, MPI_INT, MPI_MAX, comm);
  return lowest != highest;
}

} // namespace decgpe::scaleout
