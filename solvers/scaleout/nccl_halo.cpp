#include "solvers/scaleout/nccl_halo.hpp"

#include "solvers/cuda/cuda_check.hpp"

#include <stdexcept>
#include <string>

#define DECGPE_NCCL_CHECK(call)                                                                    \
  do {                                                                                             \
    const ncclResult_t decgpe_nccl_ = (call);                                                      \
    if (decgpe_nccl_ != ncclSuccess) {                                                             \
      throw std::runtime_error(std::string("NCCL error at ") + __FILE__ + ":" +                    \
                               std::to_string(__LINE__) + ": " + #call + ": " +                    \
                               ncclGetErrorString(decgpe_nccl_));                                  \
    }                                                                                              \
  } while (false)

namespace decgpe::scaleout {

NcclHaloExchange::NcclHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper,
                                   int value_bytes)
    : slab_(slab), lower_(lower), upper_(upper), slice_bytes_(slab.slice_cells() * value_bytes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id{};
  if (rank == 0) {
    DECGPE_NCCL_CHECK(ncclGetUniqueId(&id));
  }
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
  DECGPE_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
  int least = 0, greatest = 0;
  DECGPE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  DECGPE_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
  DECGPE_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
  DECGPE_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  warm_up();
}

void NcclHaloExchange::warm_up() {
  // NCCL connects peers lazily, on the first send/recv: do that now, on a scratch slab of the same
  // shape, so the set-up cost stays out of the time steps.
  const auto bytes = static_cast<std::size_t>(slab_.cells() / slab_.slice_cells() * slice_bytes_);
  void* scratch = nullptr;
  DECGPE_CUDA_CHECK(cudaMalloc(&scratch, bytes));
  DECGPE_CUDA_CHECK(cudaMemsetAsync(scratch, 0, bytes, stream_));
  std::byte* const fields[] = {static_cast<std::byte*>(scratch)};
  begin(fields, stream_);
  end(stream_);
  DECGPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  DECGPE_CUDA_CHECK(cudaFree(scratch));
}

NcclHaloExchange::~NcclHaloExchange() {
  cudaStreamSynchronize(stream_);
  ncclCommDestroy(comm_);
  cudaEventDestroy(ready_);
  cudaEventDestroy(done_);
  cudaStreamDestroy(stream_);
}

void NcclHaloExchange::begin(std::span<std::byte* const> fields, void* stream) {
  const auto compute = static_cast<cudaStream_t>(stream);
  const std::int64_t n = slice_bytes_;
  const std::int64_t halo = slab_.halo_depth() * n;
  const auto count = static_cast<std::size_t>(halo); // bytes
  // The fields were queued on the compute stream; the exchange waits for them only.
  DECGPE_CUDA_CHECK(cudaEventRecord(ready_, compute));
  DECGPE_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready_));
  DECGPE_NCCL_CHECK(ncclGroupStart());
  for (std::byte* field : fields) {
    std::byte* first_owned = field + slab_.owned_begin * n;
    std::byte* past_owned = field + slab_.owned_end * n;
    if (lower_ >= 0) {
      DECGPE_NCCL_CHECK(ncclSend(first_owned, count, ncclUint8, lower_, comm_, stream_));
      DECGPE_NCCL_CHECK(ncclRecv(first_owned - halo, count, ncclUint8, lower_, comm_, stream_));
    }
    if (upper_ >= 0) {
      DECGPE_NCCL_CHECK(ncclSend(past_owned - halo, count, ncclUint8, upper_, comm_, stream_));
      DECGPE_NCCL_CHECK(ncclRecv(past_owned, count, ncclUint8, upper_, comm_, stream_));
    }
  }
  DECGPE_NCCL_CHECK(ncclGroupEnd());
}

void NcclHaloExchange::end(void* stream) {
  DECGPE_CUDA_CHECK(cudaEventRecord(done_, stream_));
  DECGPE_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), done_));
}

} // namespace decgpe::scaleout
