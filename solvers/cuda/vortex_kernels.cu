// The vortex flux on the device: one thread per primal edge of the slices asked for, the ring's
// winding by solvers/vortex_flux.hpp's sign tests (the reference's arithmetic, so the same
// integers, the same region: V by the stepping kernels' frame_potential, the host's arithmetic),
// and the pierced edges compacted through an atomic counter: those outside the region never reach
// the counter. The counter's order is not reproducible, so the device sorts them by edge id (a
// radix sort of the ids' significant bits; a host sort took ~1 ms a sample, the GPU idle) before
// only the counted ones are copied to the host.

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"

#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>

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

/// A pierced edge's sort key: its id (unique, so the order is total).
struct ById {
  __host__ __device__ ::cuda::std::tuple<std::int64_t&> operator()(PiercedEdge& p) const {
    return {p.edge};
  }
};

/// The bits an id below `edge_ids` takes: those the sort looks at (ids are never negative).
int id_bits(long long edge_ids) {
  return std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned long long>(edge_ids))));
}

} // namespace

std::size_t pierced_sort_bytes(unsigned long long capacity, long long edge_ids) {
  std::size_t bytes = 0;
  DECGPE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
      static_cast<void*>(nullptr), bytes, static_cast<const PiercedEdge*>(nullptr),
      static_cast<PiercedEdge*>(nullptr), capacity, ById{}, 0, id_bits(edge_ids)));
  return bytes;
}

void launch_sort_pierced(const PiercedEdge* in, PiercedEdge* out, unsigned long long count,
                         long long edge_ids, void* scratch, std::size_t scratch_bytes,
                         cudaStream_t stream) {
  if (count == 0) {
    return;
  }
  DECGPE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(scratch, scratch_bytes, in, out, count, ById{},
                                                   0, id_bits(edge_ids), stream));
}

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
