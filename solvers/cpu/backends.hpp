#pragma once
// Factories of the CPU backends. The Problem must outlive the backend.

#include "solvers/backend.hpp"
#include "solvers/halo_exchange.hpp"

namespace decgpe::cpu {
std::unique_ptr<Backend> make_reference_backend(const Problem& problem);
/// With `halo`, the problem's grid is a z-slab and each step exchanges its boundary slices.
std::unique_ptr<Backend> make_openmp_backend(const Problem& problem, HaloExchange* halo = nullptr);
} // namespace decgpe::cpu
