#pragma once
// Factories of the CPU backends (registered in solvers/backend_registry.cpp). The Problem must
// outlive the backend. With `halo`, the problem's grid is a z-slab and every stencil kernel
// exchanges its output's boundary slices.

#include "solvers/backend.hpp"
#include "solvers/halo_exchange.hpp"

namespace decgpe::cpu {
std::unique_ptr<Backend> make_reference_backend(const Problem& problem, HaloExchange* halo);
std::unique_ptr<Backend> make_openmp_backend(const Problem& problem, HaloExchange* halo);
} // namespace decgpe::cpu
