// Host side of the CUDA backend: device memory, tables, launches on one stream, and diagnostics
// read back as one small struct. ψ crosses to the host only in store().

#include "solvers/cuda/cuda_backend.hpp"

#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <limits>
#include <stdexcept>
#include <utility>

namespace decgpe::cuda {

namespace {

/// Device memory owned by one object.
template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) {
      DECGPE_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), count_(o.count_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) {
      cudaFree(data_);
    }
  }
  T* get() const { return data_; }
  void upload(const T* host, std::size_t count) {
    DECGPE_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }

private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

template <class T> DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  d.upload(host.data(), host.size());
  return d;
}

std::string gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buffer;
}

class CudaBackend final : public Backend {
public:
  CudaBackend(const Problem& problem, StepVariant variant, HaloExchange* halo)
      : p_(problem), variant_(variant), halo_(halo) {
    const Grid& grid = p_.grid;
    int device = 0;
    DECGPE_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    DECGPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    device_name_ = prop.name;

    build_tables();
    tiling_ = make_tiling(variant_, dg_);
    const auto cells = static_cast<std::size_t>(grid.cells());
    const std::size_t partial_count = static_cast<std::size_t>(diagnostics_blocks(tiling_, dg_));
    const double needed = 3.0 * static_cast<double>(cells) * sizeof(Complex) +
                          static_cast<double>(p_.potential.values.size()) * sizeof(double) +
                          static_cast<double>(partial_count) * sizeof(DiagnosticSums);
    std::size_t free_bytes = 0, total_bytes = 0;
    DECGPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > static_cast<double>(free_bytes)) {
      throw std::runtime_error("GPU out of memory: " + std::to_string(cells) + " cells need " +
                               gib(needed) + ", " + device_name_ + " has " +
                               gib(static_cast<double>(free_bytes)) + " free of " +
                               gib(static_cast<double>(total_bytes)));
    }
    a_ = DeviceBuffer<Complex>(cells);
    b_ = DeviceBuffer<Complex>(cells);
    reference_ = DeviceBuffer<Complex>(cells);
    partials_ = DeviceBuffer<DiagnosticSums>(partial_count);
    result_ = DeviceBuffer<DiagnosticSums>(1);
    if (p_.potential.kind == Potential::Kind::tabulated) {
      potential_ = to_device(p_.potential.values);
      dg_.potential = potential_.get();
    }
    previous_ = a_.get();
    current_ = b_.get();
    DECGPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    DECGPE_CUDA_CHECK(cudaMallocHost(&host_result_, sizeof(DiagnosticSums)));
  }

  ~CudaBackend() override {
    for (cudaGraphExec_t pair : pairs_) {
      if (pair != nullptr) {
        cudaGraphExecDestroy(pair);
      }
    }
    cudaStreamDestroy(stream_);
    cudaFreeHost(host_result_);
  }

  std::string name() const override { return "cuda"; }
  std::string device() const override {
    return device_name_ + " (" + std::string(variant_name(variant_)) + " kernel)";
  }

  void load(std::span<const Complex> previous, std::span<const Complex> current,
            std::span<const Complex> reference) override {
    const auto cells = static_cast<std::size_t>(p_.grid.cells());
    if (previous.size() != cells || current.size() != cells || reference.size() != cells) {
      throw std::invalid_argument("state has the wrong number of cells");
    }
    previous_ = a_.get();
    current_ = b_.get();
    a_.upload(previous.data(), cells);
    b_.upload(current.data(), cells);
    reference_.upload(reference.data(), cells);
  }

  void advance(long steps) override {
    // Pairs of steps replay a captured CUDA graph (two steps return the buffers to their roles):
    // one launch instead of one to five per step, NCCL calls included. DECGPE_CUDA_GRAPHS=0 turns
    // it off.
    if (use_graphs_ && steps >= 2) {
      // The graph bakes in which buffer is current: one per parity.
      cudaGraphExec_t& pair = pairs_[current_ == a_.get() ? 1 : 0];
      if (pair == nullptr) {
        pair = capture_pair();
      }
      for (long n = 0; n + 1 < steps; n += 2) {
        DECGPE_CUDA_CHECK(cudaGraphLaunch(pair, stream_));
      }
    }
    for (long n = use_graphs_ ? steps - steps % 2 : 0; n < steps; ++n) {
      enqueue_step();
    }
  }

  void synchronize() override { DECGPE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  /// One step's kernels (and halo exchange) on the stream; swaps the buffer roles.
  void enqueue_step() {
    const int first = p_.grid.owned_begin, last = p_.grid.owned_end;
    if (halo_ == nullptr) {
      launch_step(variant_, tiling_, dg_, current_, previous_, first, last, stream_);
    } else {
      // Split phase, all on streams: boundary slices, exchange them while the interior updates.
      launch_step(variant_, tiling_, dg_, current_, previous_, first, first + 1, stream_);
      launch_step(variant_, tiling_, dg_, current_, previous_, std::max(first + 1, last - 1), last,
                  stream_);
      halo_->begin(previous_, stream_);
      launch_step(variant_, tiling_, dg_, current_, previous_, first + 1, last - 1, stream_);
      halo_->end(stream_);
    }
    std::swap(previous_, current_);
  }

  cudaGraphExec_t capture_pair() {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    DECGPE_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    enqueue_step();
    enqueue_step();
    DECGPE_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    DECGPE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    DECGPE_CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
  }

  Diagnostics diagnostics() override {
    launch_diagnostics(tiling_, dg_, previous_, current_, reference_.get(), partials_.get(),
                       result_.get(), stream_);
    DECGPE_CUDA_CHECK(cudaMemcpyAsync(host_result_, result_.get(), sizeof(DiagnosticSums),
                                      cudaMemcpyDeviceToHost, stream_));
    synchronize();
    const DiagnosticSums& s = *host_result_;
    Diagnostics d;
    d.norm = s.norm;
    d.energy = s.energy;
    d.invariant = s.invariant;
    d.overlap = {s.overlap_re, s.overlap_im};
    d.max_abs = s.max_abs;
    d.max_diagonal = s.max_diagonal;
    d.finite = s.nonfinite == 0.0;
    return d;
  }

  void store(std::span<Complex> current, std::span<Complex> previous) override {
    synchronize();
    const std::size_t bytes = static_cast<std::size_t>(p_.grid.cells()) * sizeof(Complex);
    DECGPE_CUDA_CHECK(cudaMemcpy(current.data(), current_, bytes, cudaMemcpyDeviceToHost));
    DECGPE_CUDA_CHECK(cudaMemcpy(previous.data(), previous_, bytes, cudaMemcpyDeviceToHost));
  }

private:
  /// Face-major stencil tables, padded to the most faces any cell has, and the per-local-index
  /// data.
  void build_tables() {
    const Grid& g = p_.grid;
    int faces = 0;
    for (int l = 0; l < g.ms; ++l) {
      faces = std::max(faces, g.row_begin[l + 1] - g.row_begin[l]);
    }
    std::vector<FaceEntry> table(static_cast<std::size_t>(faces * g.ms));
    std::vector<double> centre, volume(g.volume), weight_sum(g.weight_sum);
    const long long slice = static_cast<long long>(g.size[0]) * g.size[1];
    if (static_cast<double>(g.ms) * (static_cast<double>(slice) + g.size[0] + 1) >
        std::numeric_limits<std::int32_t>::max()) {
      throw std::runtime_error("domain too large for the CUDA kernels' 32-bit neighbour offsets");
    }
    for (int l = 0; l < g.ms; ++l) {
      for (int f = 0; f < faces; ++f) {
        const std::size_t e = static_cast<std::size_t>(f * g.ms + l);
        const int entry = g.row_begin[l] + f;
        if (entry >= g.row_begin[l + 1]) {
          table[e] = {0.0, 0, l | (1 << 16) | (1 << 18) | (1 << 20)}; // padding: itself, weight 0
          continue;
        }
        const StencilEntry& s = g.stencil[static_cast<std::size_t>(entry)];
        table[e] = {s.weight,
                    static_cast<std::int32_t>(g.ms * ((s.dz * slice) + s.dy * g.size[0] + s.dx) +
                                              s.neighbour - l),
                    s.neighbour | ((s.dx + 1) << 16) | ((s.dy + 1) << 18) | ((s.dz + 1) << 20)};
      }
      centre.insert(centre.end(), {g.centre[l].x, g.centre[l].y, g.centre[l].z});
    }
    faces_d_ = to_device(table);
    centre_d_ = to_device(centre);
    volume_d_ = to_device(volume);
    weight_sum_d_ = to_device(weight_sum);
    dg_ = DeviceGrid{g.size[0],
                     g.size[1],
                     g.size[2],
                     g.z_offset,
                     g.global_z,
                     g.owned_begin,
                     g.owned_end,
                     g.ms,
                     faces,
                     {g.origin.x, g.origin.y, g.origin.z},
                     {g.box.x, g.box.y, g.box.z},
                     faces_d_.get(),
                     centre_d_.get(),
                     volume_d_.get(),
                     weight_sum_d_.get(),
                     nullptr,
                     p_.potential.lambda,
                     p_.g,
                     2.0 * p_.dt};
  }

  const Problem& p_;
  StepVariant variant_;
  HaloExchange* halo_;
  std::string device_name_;
  DeviceGrid dg_{};
  Tiling tiling_{};
  DeviceBuffer<FaceEntry> faces_d_;
  DeviceBuffer<double> centre_d_, volume_d_, weight_sum_d_, potential_;
  DeviceBuffer<Complex> a_, b_, reference_;
  DeviceBuffer<DiagnosticSums> partials_, result_;
  Complex* previous_ = nullptr;
  Complex* current_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DiagnosticSums* host_result_ = nullptr;
  bool use_graphs_ = std::getenv("DECGPE_CUDA_GRAPHS") == nullptr ||
                     std::string_view(std::getenv("DECGPE_CUDA_GRAPHS")) != "0";
  cudaGraphExec_t pairs_[2] = {nullptr,
                               nullptr}; ///< two steps from each parity, captured on first use
};

} // namespace

std::string_view variant_name(StepVariant v) {
  return v == StepVariant::plain ? "plain" : "shared";
}

StepVariant parse_variant(std::string_view name) {
  if (name == "plain") {
    return StepVariant::plain;
  }
  if (name == "shared") {
    return StepVariant::shared;
  }
  throw std::invalid_argument("unknown CUDA kernel variant '" + std::string(name) +
                              "' (known: plain, shared)");
}

StepVariant preferred_variant(std::string_view /*lattice*/) {
  return StepVariant::plain;
}

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

bool device_available() {
  return device_count() > 0;
}

std::vector<std::pair<std::string, std::string>> device_context() {
  int device = 0, driver = 0, runtime = 0;
  DECGPE_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  DECGPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DECGPE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  DECGPE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const auto attribute = [&](cudaDeviceAttr a) {
    int value = 0;
    DECGPE_CUDA_CHECK(cudaDeviceGetAttribute(&value, a, device));
    return std::to_string(value);
  };
  return {{"gpu_name", prop.name},
          {"gpu_compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
          {"gpu_multiprocessors", std::to_string(prop.multiProcessorCount)},
          {"gpu_memory_bytes", std::to_string(prop.totalGlobalMem)},
          {"gpu_l2_bytes", std::to_string(prop.l2CacheSize)},
          {"gpu_clock_khz", attribute(cudaDevAttrClockRate)},
          {"gpu_memory_clock_khz", attribute(cudaDevAttrMemoryClockRate)},
          {"gpu_memory_bus_bits", attribute(cudaDevAttrGlobalMemoryBusWidth)},
          {"cuda_driver_version", std::to_string(driver)},
          {"cuda_runtime_version", std::to_string(runtime)}};
}

double measure_copy_bandwidth(std::size_t bytes, int repeats) {
  DeviceBuffer<char> from(bytes), to(bytes);
  DECGPE_CUDA_CHECK(cudaMemset(from.get(), 1, bytes));
  cudaEvent_t start = nullptr, stop = nullptr;
  DECGPE_CUDA_CHECK(cudaEventCreate(&start));
  DECGPE_CUDA_CHECK(cudaEventCreate(&stop));
  DECGPE_CUDA_CHECK(cudaMemcpy(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice)); // warm-up
  float best_ms = std::numeric_limits<float>::max();
  for (int r = 0; r < repeats; ++r) {
    DECGPE_CUDA_CHECK(cudaEventRecord(start));
    DECGPE_CUDA_CHECK(cudaMemcpy(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice));
    DECGPE_CUDA_CHECK(cudaEventRecord(stop));
    DECGPE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0F;
    DECGPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best_ms = std::min(best_ms, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return 2.0 * static_cast<double>(bytes) / (static_cast<double>(best_ms) * 1e-3);
}

std::unique_ptr<Backend> make_cuda_backend(const Problem& problem,
                                           std::optional<StepVariant> variant, HaloExchange* halo) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    throw std::runtime_error(std::string("backend 'cuda': no usable CUDA device (") +
                             (status != cudaSuccess ? cudaGetErrorString(status) : "none found") +
                             ")");
  }
  return std::make_unique<CudaBackend>(
      problem, variant.value_or(preferred_variant(problem.grid.lattice)), halo);
}

} // namespace decgpe::cuda
