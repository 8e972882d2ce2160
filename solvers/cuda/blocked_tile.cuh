#pragma once
// What a temporally blocked kernel's block shares (temporal_blocking.cu's leapfrog,
// rk4_blocking.cu's fused RK4 stages): a tile of tile_x × tile_y structure instances grown by the
// levels it computes a side, its slices brought into shared memory with cp.async (the copy engine's
// zero fill gives the Dirichlet zeros beyond the domain), the stencil table in the grown tile's
// terms, the trap's x² + y² of each column, and the face sum read from shared memory in table order
// (add_face's arithmetic: a blocked level is bitwise the single pass's).

#include "solvers/cuda/cell_access.cuh"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"

namespace decgpe::cuda {

/// Copies 16 bytes (a double value, two single ones) from global to shared memory without the
/// registers, or writes zeros there (`in_domain` false: nothing is read).
__device__ __forceinline__ void copy_async(void* to, const void* from, bool in_domain) {
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared), "l"(from),
               "r"(in_domain ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/// Every copy but those of the newest group done (this thread's; a barrier shows them all).
__device__ __forceinline__ void wait_all_but_newest() {
  asm volatile("cp.async.wait_group 1;" ::: "memory");
}
/// Every copy done (this thread's; a barrier shows them all).
__device__ __forceinline__ void wait_all_copies() {
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}

/// A face of the stencil table as a grown tile's cell meets it (fill_shared_faces).
struct SharedFace {
  double weight; ///< 0: padding, the faces end
  int delta;     ///< the neighbour's offset within a slice of the grown tile
  int dz;        ///< and its slice's, −1, 0 or 1
};

static_assert(sizeof(SharedFace) == sizeof(Complex), "the table takes whole slots of the ring");

/// Where a thread's row-major walk of a region starts and how it moves (blockDim.x cells a turn),
/// found once: the walk then needs no division a cell.
struct Walk {
  int row, rows;             ///< cells a row, rows
  int step_rows, step_cells; ///< a turn's move
  int r, c;                  ///< this thread's first cell

  __device__ static Walk of(int row, int rows) {
    const int threads = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
    return {row, rows, threads / row, threads % row, t / row, t % row};
  }
  __device__ void next(int& r_at, int& c_at) const {
    r_at += step_rows;
    c_at += step_cells;
    if (c_at >= row) {
      c_at -= row;
      ++r_at;
    }
  }
};

/// Σ_F w_F (ψ_i − ψ_j) from the ring, faces in table order, ψ_j at e + the face's delta;
/// PADDED: a weight 0 ends a row (a lattice whose cells have different face counts).
template <int MS, int F, bool PADDED>
__device__ __forceinline__ Complex ring_face_sum(const SharedFace* faces, const Complex* ring,
                                                 int e, int l, Complex psi_i) {
  Complex sum{0.0, 0.0};
#pragma unroll
  for (int f = 0; f < F; ++f) {
    const SharedFace h = faces[f * MS + l];
    if (PADDED && h.weight == 0.0) {
      break;
    }
    sum = add_face(sum, h.weight, psi_i, ring[e + h.delta]);
  }
  return sum;
}

/// x² + y² of every cell of the grown tile that lies in the domain's columns, −1 for the others:
/// the trap's part that no slice changes, and where the domain ends.
template <int MS>
__device__ void fill_planes(const DeviceGrid& g, const Blocking& b, int x0, int y0,
                            double* planes) {
  for (int e = static_cast<int>(threadIdx.x); e < b.cells; e += static_cast<int>(blockDim.x)) {
    const int l = e % MS, instance = e / MS;
    const int x = x0 + instance % b.ext_x, y = y0 + instance / b.ext_x;
    const bool in = x >= 0 && x < g.sx && y >= 0 && y < g.sy;
    planes[e] = in ? in_plane_square(coordinate(g, 0, x, l), coordinate(g, 1, y, l)) : -1.0;
  }
}

/// The stencil table in the grown tile's terms, in shared memory: face f of local index l at
/// [f · MS + l], its neighbour `delta` cells from the cell within a slice and `dz` slices away.
template <int MS, int F>
__device__ void fill_shared_faces(const DeviceGrid& g, const Blocking& b, SharedFace* hops) {
  for (int e = static_cast<int>(threadIdx.x); e < F * MS; e += static_cast<int>(blockDim.x)) {
    const Face fc = face(g, e);
    hops[e] = {fc.weight, (fc.dy * b.ext_x + fc.dx) * MS + fc.local - e % MS, fc.dz};
  }
}

/// Asks for slice s of `from` into `to` (a slot of b.cells values) over the grown tile at (x0, y0)
/// less `margin` instances a side (`walk` covers that region); zeros where the cell lies outside
/// the domain.
template <int MS>
__device__ __forceinline__ void fetch_slice(const DeviceGrid& g, const Blocking& b, int x0, int y0,
                                            Complex* to, const Complex* from, int s, int margin,
                                            const Walk& walk) {
  const bool slice_in = s >= 0 && s < g.sz;
  const Complex* slice = from + static_cast<long long>(slice_in ? s : 0) * g.sy * g.sx * MS;
  const int row_stride = b.ext_x * MS;
  for (int r = walk.r, c = walk.c; r < walk.rows; walk.next(r, c)) {
    const int ey = margin + r, cx = margin * MS + c;
    const int x = x0 + cx / MS, y = y0 + ey;
    const bool in = slice_in && x >= 0 && x < g.sx && y >= 0 && y < g.sy;
    const int within = (y * g.sx + x0) * MS + cx; // ints within a slice (the backend's limit)
    copy_async(to + ey * row_stride + cx, in ? slice + within : from, in);
  }
}

/// The block's shared memory, in 16-byte units: the stencil table (F · MS), each level's faces at
/// the position (K · F · MS), the planes (a double a cell), then the ring.
struct SharedLayout {
  int position_faces, planes, ring;
  __host__ __device__ static SharedLayout of(int faces, int steps, int cells) {
    const int planes = faces * (1 + steps);
    return {faces, planes, planes + (cells + 1) / 2};
  }
};

/// Launches a blocked kernel: a block per tile and chunk of b, with b.shared_bytes of shared memory
/// opted in.
template <class Kernel, class... Args>
void launch_blocked(Kernel kernel, const Blocking& b, cudaStream_t stream, const Args&... args) {
  const auto blocks =
      static_cast<unsigned>(static_cast<long long>(b.tiles_x) * b.tiles_y * b.chunks);
  DECGPE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(b.shared_bytes)));
  kernel<<<blocks, kBlockedThreads, b.shared_bytes, stream>>>(args...);
}

} // namespace decgpe::cuda
