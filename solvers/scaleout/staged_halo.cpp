#include "solvers/scaleout/staged_halo.hpp"

#include "solvers/cuda/cuda_check.hpp"
#include "solvers/scaleout/mpi_halo.hpp"

#include <cuda_runtime_api.h>

namespace decgpe::scaleout {

StagedHaloExchange::StagedHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper,
                                       int value_bytes)
    : slab_(slab), comm_(comm), lower_(lower), upper_(upper),
      slice_bytes_(slab.slice_cells() * value_bytes), halo_(halo_slices_type(slab, value_bytes)) {}

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
  const auto halo = static_cast<std::size_t>(slab_.halo_depth() * slice_bytes_);
  void* pinned = nullptr;
  DECGPE_CUDA_CHECK(cudaMallocHost(&pinned, 4 * fields * halo));
  pinned_ = static_cast<std::byte*>(pinned);
  pinned_fields_ = fields;
}

std::byte* StagedHaloExchange::buffer(std::size_t field, int which) const {
  const auto halo = static_cast<std::size_t>(slab_.halo_depth() * slice_bytes_);
  return pinned_ + (4 * field + static_cast<std::size_t>(which)) * halo;
}

void StagedHaloExchange::begin(std::span<std::byte* const> fields, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const std::int64_t halo = slab_.halo_depth() * slice_bytes_;
  const auto bytes = static_cast<std::size_t>(halo);
  reserve(fields.size());
  fields_.assign(fields.begin(), fields.end());
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const std::byte* first_owned = fields[f] + slab_.owned_begin * slice_bytes_;
    const std::byte* past_owned = fields[f] + slab_.owned_end * slice_bytes_;
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
    post_halo_messages({buffer(f, 2), buffer(f, 3), buffer(f, 0), buffer(f, 1)}, f, halo_, lower_,
                       upper_, comm_, &requests_[4 * f]);
  }
}

void StagedHaloExchange::end(void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  const std::int64_t halo = slab_.halo_depth() * slice_bytes_;
  const auto bytes = static_cast<std::size_t>(halo);
  for (std::size_t f = 0; f < fields_.size(); ++f) {
    std::byte* first_owned = fields_[f] + slab_.owned_begin * slice_bytes_;
    std::byte* past_owned = fields_[f] + slab_.owned_end * slice_bytes_;
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
