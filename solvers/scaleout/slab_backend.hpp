#pragma once
// Scale-out: the domain's z-slices split over MPI ranks (paper §4.2, Fig 3), each rank running a
// local backend on its slab with one halo slice per neighbour. Halos move with MPI (openmp) or NCCL
// (cuda).

#include "solvers/backend.hpp"
#include "solvers/backend_registry.hpp"

#include <mpi.h>

namespace decgpe::scaleout {

/// A backend spanning the ranks of `comm`; `local` is a registered backend that runs on slabs
/// (openmp, cuda, cuda:plain, cuda:shared; "auto" picks one). upload() takes the whole domain's
/// values on every rank; download() gathers them on rank 0 (other ranks' outputs are left
/// untouched); diagnostics() are reduced over all ranks. With cuda, each rank takes the GPU of its
/// node-local rank.
std::unique_ptr<Backend> make_slab_backend(std::string_view local, const Problem& global,
                                           MPI_Comm comm, const BackendTuning& tuning = {});

} // namespace decgpe::scaleout
