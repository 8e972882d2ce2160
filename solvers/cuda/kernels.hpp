#pragma once
// Host-callable launchers of the device kernels (defined in the .cu files).

#include "solvers/cuda/cuda_backend.hpp"
#include "solvers/cuda/device_tables.hpp"

#include <cuda_runtime_api.h>

namespace decgpe::cuda {

/// The tiling a variant uses for a grid.
Tiling make_tiling(StepVariant variant, const DeviceGrid& g);

/// One leapfrog step for the z-slices [z_begin, z_end): out ← out − 2iΔt M(ψ) ψ.
void launch_step(StepVariant variant, const Tiling& t, const DeviceGrid& g, const Complex* psi,
                 Complex* out, int z_begin, int z_end, cudaStream_t stream);

/// Diagnostics of the whole grid into *result (device memory); `partials` holds one DiagnosticSums
/// per block of diagnostics_blocks(t, g).
void launch_diagnostics(const Tiling& t, const DeviceGrid& g, const Complex* previous,
                        const Complex* psi, const Complex* reference, DiagnosticSums* partials,
                        DiagnosticSums* result, cudaStream_t stream);
long diagnostics_blocks(const Tiling& t, const DeviceGrid& g);

} // namespace decgpe::cuda
