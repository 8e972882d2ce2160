#pragma once
// Factories of the CPU backends. The Problem must outlive the backend.

#include "solvers/backend.hpp"

namespace decgpe::cpu {
std::unique_ptr<Backend> make_reference_backend(const Problem& problem);
std::unique_ptr<Backend> make_openmp_backend(const Problem& problem);
} // namespace decgpe::cpu
