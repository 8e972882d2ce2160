// The vortex flux on the device: one thread per primal edge of the slices asked for, the ring's
// winding by solvers/vortex_flux.hpp's sign tests (the reference's arithmetic, so the same
// integers, the same region: V by the stepping kernels' frame_potential, the host's arithmetic),
// and the pierced edges compacted through an atomic counter: those outside the region never reach
// the counter, and only the counted ones are copied to the host, which sorts them by edge id (the
// counter's order is not reproducible).

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"

#include <algorithm>

namespace decgpe::cuda {

namespace {

constexpr int kEdgeThreads = 256;

/// The cells with V < cut in the stepping frame (the host's BelowCut, solvers/vortex_flux.cpp).
struct BelowCut {
  DeviceGrid grid;
  double cut;
  __device__ bool operator()(const RingEntry& r, int sx, int sy, int sz, long long j) const {
    return frame_potential(grid, sx + r.dx, sy + r.dy, sz + r.dz + grid.z_offset, r.cell, j) < cut;
  }
};

template <class Region>
__global__ void vortex_flux_edges(RingGrid g, const std::int32_t* ring_begin,
                                  const RingEntry* rings, int edges, const Complex* psi,
                                  int z_begin, long long count, Region region, PiercedEdge* out,
                                  unsigned long long capacity, unsigned long long* found) {
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < count;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int e = static_cast<int>(t % edges);
    const long long instance = t / edges; // within the slices from z_begin
    const int sx = static_cast<int>(instance % g.sx);
    const int sy = static_cast<int>(instance / g.sx % g.sy);
    const int sz = z_begin + static_cast<int>(instance / (static_cast<long long>(g.sx) * g.sy));
    const int first = ring_begin[e];
    int flux = 0;
    if (edge_flux(g, rings + first, ring_begin[e + 1] - first, psi, sx, sy, sz, region, flux) &&
        flux != 0) {
      const unsigned long long slot = atomicAdd(found, 1ULL);
      if (slot < capacity) {
        const long long global = (static_cast<long long>(sz + g.z_offset) * g.sy + sy) * g.sx + sx;
        out[slot] = PiercedEdge{global * edges + e, flux};
      }
    }
  }
}

} // namespace

void launch_vortex_flux(const RingGrid& g, const std::int32_t* ring_begin, const RingEntry* rings,
                        int edges, const DeviceGrid& grid, const Complex* psi, int z_begin,
                        int z_end, double potential_cut, PiercedEdge* out,
                        unsigned long long capacity, unsigned long long* found,
                        cudaStream_t stream) {
  DECGPE_CUDA_CHECK(cudaMemsetAsync(found, 0, sizeof(unsigned long long), stream));
  const long long count =
      static_cast<long long>(edges) * g.sx * g.sy * std::max(0, z_end - z_begin);
  if (count == 0) {
    return;
  }
  const long long blocks = std::min<long long>((count + kEdgeThreads - 1) / kEdgeThreads, 65536);
  const auto launch = [&](auto region) {
    vortex_flux_edges<<<static_cast<unsigned>(blocks), kEdgeThreads, 0, stream>>>(
        g, ring_begin, rings, edges, psi, z_begin, count, region, out, capacity, found);
  };
  if (potential_cut == kEveryRing) {
    launch(EveryRing{});
  } else {
    launch(BelowCut{grid, potential_cut});
  }
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

} // namespace decgpe::cuda
