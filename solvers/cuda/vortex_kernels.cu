// The vortex flux on the device: one thread per primal edge of the slices asked for, the ring's
// winding by solvers/vortex_flux.hpp's sign tests (the reference's arithmetic, so the same
// integers, the same region: V by the stepping kernels' frame_potential, the host's arithmetic).
// The flux of every edge instance goes to a byte array in instance order, which is edge-id order,
// and the pierced count to a device counter: the run's thread waits for neither. The list is then
// compacted from the bytes with an order-keeping select (so no sort), on whichever thread and
// stream collect it, while the next steps overwrite ψ.

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"

#include <algorithm>
#include <cub/device/device_select.cuh>
#include <stdexcept>
#include <string>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace decgpe::cuda {

namespace {

constexpr int kEdgeThreads = 256;
constexpr int kMaxGridYZ = 65535; ///< a launch's most blocks along y and z

/// The cells with V < cut in the stepping frame (the host's BelowCut, solvers/vortex_flux.cpp).
struct BelowCut {
  DeviceGrid grid;
  double cut;
  __device__ bool operator()(const RingEntry& r, int sx, int sy, int sz, long long j) const {
    return frame_potential(grid, sx + r.dx, sy + r.dy, sz + r.dz + grid.z_offset, r.cell, j) < cut;
  }
};

/// Block (x, sy, slice) covers edges [256·x, 256·x + 256) of row sy of a slice, e + E·sx: the
/// block's index gives the row and the slice, so no thread divides a 64-bit number.
template <class Region, class Value>
__global__ void vortex_flux_edges(RingGrid g, const std::int32_t* ring_begin,
                                  const RingEntry* rings, int edges, const Value* psi, int z_begin,
                                  Region region, std::int8_t* flux_of, unsigned long long* found) {
  const int in_row = static_cast<int>(blockIdx.x) * kEdgeThreads + static_cast<int>(threadIdx.x);
  const int row_edges = edges * g.sx;
  const int sy = static_cast<int>(blockIdx.y), sz = z_begin + static_cast<int>(blockIdx.z);
  int flux = 0; // stays 0 where the edge is not measured
  if (in_row < row_edges) {
    const int e = in_row % edges, sx = in_row / edges;
    const int first = ring_begin[e];
    edge_flux(g, rings + first, ring_begin[e + 1] - first, psi, sx, sy, sz, region, flux);
    const long long row = static_cast<long long>(blockIdx.z) * g.sy + sy;
    flux_of[row * row_edges + in_row] = static_cast<std::int8_t>(flux);
  }
  const int pierced = __syncthreads_count(flux != 0);
  if (threadIdx.x == 0 && pierced > 0) {
    atomicAdd(found, static_cast<unsigned long long>(pierced));
  }
}

/// Instance-order index t of the launched slices → its pierced-edge entry (id = t + first id).
struct EdgeAt {
  const std::int8_t* flux_of;
  long long first_id;
  __host__ __device__ PiercedEdge operator()(long long t) const {
    return PiercedEdge{first_id + t, flux_of[t]};
  }
};

struct IsPierced {
  __host__ __device__ bool operator()(const PiercedEdge& p) const { return p.flux != 0; }
};

auto edges_from(const std::int8_t* flux_of, long long first_id) {
  return thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                         EdgeAt{flux_of, first_id});
}

} // namespace

std::size_t pierced_select_bytes(long long instances) {
  std::size_t bytes = 0;
  DECGPE_CUDA_CHECK(
      cub::DeviceSelect::If(static_cast<void*>(nullptr), bytes, edges_from(nullptr, 0),
                            static_cast<PiercedEdge*>(nullptr),
                            static_cast<unsigned long long*>(nullptr), instances, IsPierced{}));
  return bytes;
}

void launch_select_pierced(const std::int8_t* flux_of, long long instances, long long first_id,
                           PiercedEdge* out, unsigned long long* selected, void* scratch,
                           std::size_t scratch_bytes, cudaStream_t stream) {
  DECGPE_CUDA_CHECK(cub::DeviceSelect::If(scratch, scratch_bytes, edges_from(flux_of, first_id),
                                          out, selected, instances, IsPierced{}, stream));
}

template <class Value>
void launch_vortex_flux(const RingGrid& g, const std::int32_t* ring_begin, const RingEntry* rings,
                        int edges, const DeviceGrid& grid, const Value* psi, int z_begin, int z_end,
                        double potential_cut, std::int8_t* flux_of, unsigned long long* found,
                        cudaStream_t stream) {
  DECGPE_CUDA_CHECK(cudaMemsetAsync(found, 0, sizeof(unsigned long long), stream));
  const int slices = std::max(0, z_end - z_begin);
  if (slices == 0 || g.sy == 0 || edges * g.sx == 0) {
    return;
  }
  if (g.sy > kMaxGridYZ || slices > kMaxGridYZ) {
    throw std::runtime_error("vortex flux: " + std::to_string(g.sy) + " rows or " +
                             std::to_string(slices) + " slices, more than a launch's " +
                             std::to_string(kMaxGridYZ));
  }
  const dim3 blocks((edges * g.sx + kEdgeThreads - 1) / kEdgeThreads, g.sy, slices);
  const auto launch = [&](auto region) {
    vortex_flux_edges<<<blocks, kEdgeThreads, 0, stream>>>(g, ring_begin, rings, edges, psi,
                                                           z_begin, region, flux_of, found);
  };
  if (potential_cut == kEveryRing) {
    launch(EveryRing{});
  } else {
    launch(BelowCut{grid, potential_cut});
  }
  DECGPE_CUDA_CHECK(cudaGetLastError());
}

template void launch_vortex_flux(const RingGrid&, const std::int32_t*, const RingEntry*, int,
                                 const DeviceGrid&, const Complex*, int, int, double, std::int8_t*,
                                 unsigned long long*, cudaStream_t);
template void launch_vortex_flux(const RingGrid&, const std::int32_t*, const RingEntry*, int,
                                 const DeviceGrid&, const ComplexFloat*, int, int, double,
                                 std::int8_t*, unsigned long long*, cudaStream_t);

} // namespace decgpe::cuda
