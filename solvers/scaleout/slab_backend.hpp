#pragma once
// Scale-out: the domain's z-slices split over MPI ranks (paper §4.2, Fig 3), each rank running a
// local backend on its slab with k halo slices per neighbour (deep halos, exchanged every k stencil
// kernels: solvers/halo_schedule.hpp). Halos move with MPI (openmp) or NCCL (cuda).

#include "solvers/backend.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/scaleout/decomposition.hpp"

namespace decgpe::scaleout {

/// A backend spanning the ranks of `layout`; `local` is a registered backend that runs on slabs
/// (openmp, cuda, cuda:plain; "auto" picks one; it may differ between ranks: hybrid
/// ranks, `mpirun -np 1 decgpe … --backend cuda : -np 3 decgpe … --backend openmp`, where the GPU
/// rank's halos go through host memory) and `slab` this rank's problem
/// (layout.local() of the whole domain's). Like every backend it works on its problem's cells:
/// upload() and download() take this rank's stored slices (halos included), no rank ever holds the
/// whole domain; diagnostics() are reduced over all ranks. With cuda, each rank takes the GPU of
/// its node-local rank.
/// A GPU rank takes the GPU of its node-local rank (modulo the node's GPUs); other backends
/// nothing. Collective over `comm` (every rank calls it, whatever its backend); before a rank's
/// first CUDA work (the calibration, the slab backend).
void bind_device(std::string_view local, MPI_Comm comm);

std::unique_ptr<Backend> make_slab_backend(std::string_view local, const Problem& slab,
                                           const Decomposition& layout,
                                           const BackendTuning& tuning = {});

} // namespace decgpe::scaleout
