#include "solvers/scaleout/staged_halo.hpp"

#include "solvers/cuda/cuda_check.hpp"

#include <cuda_runtime_api.h>
#include <limits>
#include <stdexcept>

namespace decgpe::scaleout {

StagedHaloExchange::StagedHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper)
    : slab_(slab), comm_(comm), lower_(lower), upper_(upper) {
  const std::int64_t doubles = 2 * slab.halo_depth() * slab.slice_cells();
  if (doubles > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("halo slices too large for one MPI message");
  }
  MPI_Type_contiguous(static_cast<int>(doubles), MPI_DOUBLE, &halo_);
  MPI_Type_commit(&halo_);
}

StagedHaloExchange::~StagedHaloExchange() {
  cudaFreeHost(pinned_);
  MPI_Type_free(&halo_);
}

void StagedHaloExchange::reserve(std::size_t fields) {
  if (fields <= pinned_fields_) {
    return;
  }
  DECGPE_CUDA_CHECK(cudaFreeHost(pinned_));
  pinned_ = nullptr;
  const auto halo = static_cast<std::size_t>(slab_.halo_depth() * slab_.slice_cells());
  void* pinned = nullptr;
  DECGPE_CUDA_CHECK(cudaMallocHost(&pinned, 4 * fields * halo * sizeof(Complex)));
  pinned_ = static_cast<Complex*>(pinned);
  pinned_fields_ = fields;
}

Complex* StagedHaloExchange::buffer(std::size_t field, int which) const {
  const auto halo = static_cast<std::size_t>(slab_.halo_depth() * slab_.slice_cells());
  return pinned_ + (4 * field + static_cast<std::size_t>(which)) * halo;
}

void StagedHaloExchange::begin(std::span<Complex* const> fields, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const std::int64_t halo = slab_.halo_depth() * slab_.slice_cells();
  const auto bytes = static_cast<std::size_t>(halo) * sizeof(Complex);
  reserve(fields.size());
  fields_.assign(fields.begin(), fields.end());
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const Complex* first_owned = fields[f] + slab_.owned_begin * slab_.slice_cells();
    const Complex* past_owned = fields[f] + slab_.owned_end * slab_.slice_cells();
    if (lower_ != MPI_PROC_NULL) {
      DECGPE_CUDA_CHECK(
          cudaMemcpyAsync(buffer(f, 0), first_owned, bytes, cudaMemcpyDeviceToHost, s));
    }
    if (upper_ != MPI_PROC_NULL) {
      DECGPE_CUDA_CHECK(
          cudaMemcpyAsync(buffer(f, 1), past_owned - halo, bytes, cudaMemcpyDeviceToHost, s));
    }
  }
  // The copies (and the previous exchange's copies back into the device) are done: MPI may read
  // and refill the buffers.
  DECGPE_CUDA_CHECK(cudaStreamSynchronize(s));
  requests_.assign(4 * fields.size(), MPI_REQUEST_NULL);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const int down = static_cast<int>(2 * f), up = down + 1; // MpiHaloExchange's tags
    MPI_Request* r = &requests_[4 * f];
    MPI_Irecv(buffer(f, 2), 1, halo_, lower_, up, comm_, &r[0]);
    MPI_Irecv(buffer(f, 3), 1, halo_, upper_, down, comm_, &r[1]);
    MPI_Isend(buffer(f, 0), 1, halo_, lower_, down, comm_, &r[2]);
    MPI_Isend(buffer(f, 1), 1, halo_, upper_, up, comm_, &r[3]);
  }
}

void StagedHaloExchange::end(void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  const std::int64_t halo = slab_.halo_depth() * slab_.slice_cells();
  const auto bytes = static_cast<std::size_t>(halo) * sizeof(Complex);
  for (std::size_t f = 0; f < fields_.size(); ++f) {
    Complex* first_owned = fields_[f] + slab_.owned_begin * slab_.slice_cells();
    Complex* past_owned = fields_[f] + slab_.owned_end * slab_.slice_cells();
    if (lower_ != MPI_PROC_NULL) {
      DECGPE_CUDA_CHECK(
          cudaMemcpyAsync(first_owned - halo, buffer(f, 2), bytes, cudaMemcpyHostToDevice, s));
    }
    if (upper_ != MPI_PROC_NULL) {
      DECGPE_CUDA_CHECK(
          cudaMemcpyAsync(past_owned, buffer(f, 3), bytes, cudaMemcpyHostToDevice, s));
    }
  }
}

} // namespace decgpe::scaleout
