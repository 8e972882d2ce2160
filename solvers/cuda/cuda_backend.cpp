// Host side of the CUDA backend: device memory, tables, launches on one stream, and diagnostics
// read back as one small struct. ψ crosses to the host only in store(). On a slab, a stencil kernel
// whose inputs' halos must be exchanged (solvers/halo_schedule.hpp) runs its interior on the main
// stream at once, while the exchange and then the slices next to the halos run on a stream of the
// highest priority; the main stream joins it before the next kernel. The vectors hold the
// precision's values (solvers/precision.hpp: 16 or 8 bytes a cell); each launch site picks the
// kernels' instantiation for it with with_precision.

#include "solvers/cuda/cuda_backend.hpp"

#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/kernels.hpp"
#include "solvers/cuda/tunables.hpp"
#include "solvers/face_colouring.hpp"
#include "solvers/halo_schedule.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <future>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace decgpe::cuda {

namespace {

/// "12.4" from CUDA's 1000 major + 10 minor.
std::string cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// A host-to-device copy that is complete when it returns. cudaMemcpy from pageable memory may
/// return before its DMA lands, ordered only on the legacy default stream, which the backend's
/// non-blocking stream does not wait for: a kernel queued next could read the old bytes (a table
/// made mid-run, such as a new step's face rotations, did, seen as a rare race on the H100).
void copy_to_device(void* device, const void* host, std::size_t bytes) {
  DECGPE_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  DECGPE_CUDA_CHECK(cudaDeviceSynchronize());
}

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
  std::size_t size() const { return count_; }
  void upload(const T* host, std::size_t count) { copy_to_device(data_, host, count * sizeof(T)); }

private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// Page-locked host memory for `count` T (the device copies into it at full speed, asynchronously).
template <class T> class PinnedBuffer {
public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) {
    if (count > 0) {
      DECGPE_CUDA_CHECK(cudaMallocHost(&data_, count * sizeof(T)));
    }
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    return *this;
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) {
      cudaFreeHost(data_);
    }
  }
  T* get() const { return data_; }

private:
  T* data_ = nullptr;
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

/// A tunable's value and where it came from: the case, the documented environment fallback, or
/// the default.
struct Setting {
  std::string value, source;
  std::string described() const { return value + " (" + source + ")"; }
};

/// The tunable `key`'s setting: the case's value, else its environment variable's (tunables.cpp),
/// else `fallback`.
Setting chosen(const std::string& from_case, std::string_view key, const char* fallback) {
  if (!from_case.empty()) {
    return {from_case, "case"};
  }
  const auto& keys = tunables().keys;
  const auto it = std::ranges::find(keys, key, &Tunable::key);
  const std::string variable(it == keys.end() ? "" : it->environment);
  if (const char* env = std::getenv(variable.c_str()); env != nullptr && *env != '\0') {
    return {env, "environment " + variable};
  }
  return {fallback, "default"};
}

/// The case's cuda.graphs as the environment variable writes it: a boolean's "true" is "on".
std::string graphs_given(const BackendTuning& tuning) {
  const std::string given = tuning.value("cuda.graphs");
  return given == "true" ? "on" : given == "false" ? "off" : given;
}

/// A count and the kernel's shape after it: cuda.steps_per_sweep's k and the wavefront's or the
/// temporal blocking's shape ("2s1l4r4b8"), cuda.rk4_stages_per_sweep's stages and the tile (a
/// case gives the count alone); {1, ""} when not given.
std::pair<int, std::string> count_and_shape(const std::string& given, std::string_view key) {
  if (given.empty()) {
    return {1, ""};
  }
  int steps = 0;
  const auto [end, error] = std::from_chars(given.data(), given.data() + given.size(), steps);
  if (error != std::errc() || end == given.data()) {
    throw std::invalid_argument(std::string(key) + ": '" + given + "' is not a number");
  }
  return {steps, std::string(end, given.data() + given.size())};
}

/// RK4's default pairs want a whole wave of blocks: three fit an SM (~62 KiB each on cubic). On the
/// H100, 104 blocks ran 2.3× slower than a stage a pass, 500 blocks 1.13× faster.
constexpr long long kRk4PairBlocksPerSm = 3;

/// Times the work queued on a stream with CUDA events (NVBench's method: device time, not host
/// time).
class DeviceTimer final : public WorkTimer {
public:
  explicit DeviceTimer(cudaStream_t stream) : stream_(stream) {
    DECGPE_CUDA_CHECK(cudaEventCreate(&start_));
    DECGPE_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~DeviceTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  void start() override { DECGPE_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  double stop() override {
    DECGPE_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    DECGPE_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0F;
    DECGPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1e-3;
  }

private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// The hop slot of each of cell l's stencil entries, in row order: its rank among the cell's faces
/// whose neighbour is off the cell's (x, y) (a rotating sweep keeps w e^{−iθ} for those), or
/// kIdentityPhase for the others (θ = 0 exactly: w e^{−iθ} = (w, w · 0), nothing to keep).
std::vector<int> hop_slots(const Grid& g, int l) {
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  const lattices::Vec3& own = g.centre[l];
  std::vector<int> slots;
  int kept = 0;
  for (int entry = g.row_begin[l]; entry < g.row_begin[l + 1]; ++entry) {
    const StencilEntry& s = g.stencil[static_cast<std::size_t>(entry)];
    const lattices::Vec3& c = g.centre[s.neighbour];
    const bool same_xy =
        s.dx == 0 && s.dy == 0 && bits(c.x) == bits(own.x) && bits(c.y) == bits(own.y);
    slots.push_back(same_xy ? kIdentityPhase : kept++);
  }
  if (kept >= kIdentityPhase) {
    throw std::runtime_error("a cell with more faces than the CUDA tables' hop slots encode");
  }
  return slots;
}

/// The most hop slots any cell needs (DeviceGrid::hop_slots).
int most_hop_slots(const Grid& g) {
  int most = 0;
  for (int l = 0; l < g.ms; ++l) {
    for (const int slot : hop_slots(g, l)) {
      most = slot == kIdentityPhase ? most : std::max(most, slot + 1);
    }
  }
  return most;
}

/// The stencil face-major ([f · ms + l]), padded to `faces` a cell with weight-0 entries that point
/// at the cell itself; each entry's neighbour as a 32-bit index offset.
std::vector<FaceEntry> face_table(const Grid& g, int faces) {
  const long long slice = static_cast<long long>(g.size[0]) * g.size[1];
  if (static_cast<double>(g.ms) * (static_cast<double>(slice) + g.size[0] + 1) >
      std::numeric_limits<std::int32_t>::max()) {
    throw std::runtime_error("domain too large for the CUDA kernels' 32-bit neighbour offsets");
  }
  std::vector<FaceEntry> table(static_cast<std::size_t>(faces * g.ms));
  for (int l = 0; l < g.ms; ++l) {
    const std::vector<int> slots = hop_slots(g, l);
    for (int f = 0; f < faces; ++f) {
      const std::size_t e = static_cast<std::size_t>(f * g.ms + l);
      const int entry = g.row_begin[l] + f;
      if (entry >= g.row_begin[l + 1]) { // padding: itself, weight 0
        table[e] = {0.0, 0, l | (1 << 16) | (1 << 18) | (1 << 20) | (kIdentityPhase << 22)};
        continue;
      }
      const StencilEntry& s = g.stencil[static_cast<std::size_t>(entry)];
      table[e] = {s.weight,
                  static_cast<std::int32_t>(g.ms * ((s.dz * slice) + s.dy * g.size[0] + s.dx) +
                                            s.neighbour - l),
                  s.neighbour | ((s.dx + 1) << 16) | ((s.dy + 1) << 18) | ((s.dz + 1) << 20) |
                      (slots[static_cast<std::size_t>(f)] << 22)};
    }
  }
  return table;
}

/// The local indices with the most faces first (the sweep's by-faces thread order).
std::vector<int> most_faces_first(const Grid& g) {
  std::vector<int> by_faces(static_cast<std::size_t>(g.ms));
  std::iota(by_faces.begin(), by_faces.end(), 0);
  const auto face_count = [&](int l) { return g.row_begin[l + 1] - g.row_begin[l]; };
  std::stable_sort(by_faces.begin(), by_faces.end(),
                   [&](int a, int b) { return face_count(a) > face_count(b); });
  return by_faces;
}

class CudaBackend final : public Backend {
public:
  CudaBackend(const Problem& problem, HaloExchange* halo, const BackendTuning& tuning)
      : p_(problem), halo_(halo), schedule_(problem.grid),
        shape_(chosen(tuning.value("cuda.block_shape"), "cuda.block_shape", "sweep")),
        graphs_setting_(chosen(graphs_given(tuning), "cuda.graphs", "on")),
        use_graphs_(graphs_setting_.value != "off" && graphs_setting_.value != "0") {
    if (use_graphs_ && halo_ != nullptr && !halo_->enqueues_only()) {
      graphs_setting_ = {"off", "the halo exchange waits on the host"};
      use_graphs_ = false;
    }
    DECGPE_CUDA_CHECK(cudaGetDevice(&device_));
    cudaDeviceProp prop{};
    DECGPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    device_name_ = prop.name;

    build_tables();
    upload_rings();
    plan_kernels(tuning, prop.multiProcessorCount);
    allocate_reductions();
    if (p_.potential.kind == Potential::Kind::tabulated) {
      potential_ = to_device(p_.potential.values);
      dg_.potential = potential_.get();
    }
    create_streams();
    DECGPE_CUDA_CHECK(cudaMallocHost(&host_result_, sizeof(RotatingSums)));
    DECGPE_CUDA_CHECK(cudaMallocHost(&host_step_result_, sizeof(StepSums)));
  }

  ~CudaBackend() override {
    forget_graphs();
    if (halo_ != nullptr) {
      cudaEventDestroy(fork_);
      cudaEventDestroy(join_);
      cudaStreamDestroy(edge_stream_);
    }
    cudaEventDestroy(flux_found_);
    cudaStreamDestroy(flux_stream_);
    cudaStreamDestroy(stream_);
    cudaFreeHost(host_result_);
    cudaFreeHost(host_step_result_);
  }

  std::string name() const override { return "cuda"; }
  const Problem& problem() const override { return p_; }
  cudaStream_t stream() const { return stream_; }
  std::string device() const override { return device_name_; }

  std::vector<std::pair<std::string, std::string>> tuning() const override {
    std::vector<std::pair<std::string, std::string>> out{
        {"cuda_block_shape", shape_.described()},
        {"cuda_passes_block", describe(stencil_tiling_)},
        {"cuda_graphs", graphs_setting_.described()},
        {"cuda_steps_per_sweep", steps_per_sweep_.described()},
        {"cuda_rk4_stages_per_sweep", rk4_stages_.described()},
        {"cuda_leapfrog_block", describe(tiling_)}};
    if (wave_.steps > 1) {
      out.emplace_back("cuda_wavefront", wavefront_shape_.described());
    }
    if (blocking_.steps > 1) {
      out.emplace_back("cuda_temporal_blocking", blocked_shape_.described());
    }
    return out;
  }

  VectorId create_vector() override {
    const std::size_t bytes = vector_bytes();
    reserve(static_cast<double>(bytes));
    for (std::size_t v = 0; v < vectors_.size(); ++v) {
      if (vectors_[v].get() == nullptr) {
        vectors_[v] = DeviceBuffer<std::byte>(bytes);
        schedule_.created(static_cast<VectorId>(v));
        return static_cast<VectorId>(v);
      }
    }
    vectors_.emplace_back(bytes);
    schedule_.created(static_cast<VectorId>(vectors_.size() - 1));
    return static_cast<VectorId>(vectors_.size() - 1);
  }
  void destroy_vector(VectorId v) override {
    synchronize();
    forget_graphs(); // they may name its memory
    vectors_.at(static_cast<std::size_t>(v)) = DeviceBuffer<std::byte>();
  }
  /// The values rounded to the precision's (exact in double).
  void upload(VectorId v, std::span<const Complex> values) override {
    check_size(values.size());
    synchronize();
    if (p_.precision == Precision::double_) {
      copy_to_device(at(v), values.data(), values.size_bytes());
    } else {
      std::vector<ComplexFloat> narrow(values.size());
      std::ranges::transform(values, narrow.begin(),
                             [](const Complex& a) { return convert<float>(a); });
      copy_to_device(at(v), narrow.data(), narrow.size() * sizeof(ComplexFloat));
    }
    schedule_.uploaded(v);
  }
  /// The values widened to FP64 (exact).
  void download(VectorId v, std::span<Complex> values) override {
    check_size(values.size());
    synchronize();
    if (p_.precision == Precision::double_) {
      DECGPE_CUDA_CHECK(
          cudaMemcpy(values.data(), at(v), values.size_bytes(), cudaMemcpyDeviceToHost));
      return;
    }
    std::vector<ComplexFloat> narrow(values.size());
    DECGPE_CUDA_CHECK(cudaMemcpy(narrow.data(), at(v), narrow.size() * sizeof(ComplexFloat),
                                 cudaMemcpyDeviceToHost));
    std::ranges::transform(narrow, values.begin(),
                           [](const ComplexFloat& a) { return convert<double>(a); });
  }

  void apply_m(VectorId in, VectorId out) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      Stored<Types>* result = typed<Types>(out);
      const Stored<Types>* psi = typed<Types>(in);
      stencil(plan(apply_m_access(in, out)), [&](int z_begin, int z_end, cudaStream_t stream) {
        launch_apply_m<Types>(stencil_tiling_, dg_, psi, result, z_begin, z_end, stream);
      });
    });
  }

  void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) override {
    if (dg_.two_dt != 2.0 * dt) {
      forget_graphs();
      dg_.two_dt = 2.0 * dt;
    }
    long n = 0;
    while (blocking_.steps > 1 && steps - n >= blocking_.steps) {
      // On a slab, the steps before an exchange that would fall inside a launch run singly: the
      // next launch starts at it, so every rank exchanges when its neighbours do.
      const int singles =
          halo_ == nullptr ? 0 : schedule_.leapfrog_singles(older, newer, blocking_.steps);
      for (int j = 0; j < singles; ++j, ++n) {
        enqueue_leapfrog(older, newer);
        std::swap(older, newer);
      }
      if (singles == 0) {
        blocked_sweep(older, newer);
        n += blocking_.steps;
        if (blocking_.steps % 2 != 0) {
          std::swap(older, newer);
        }
      }
    }
    for (; wave_.steps > 1 && steps - n >= wave_.steps; n += wave_.steps) {
      launch_leapfrog_wavefront(wavefront_tiling_, dg_, wave_, typed<DoubleTypes>(older),
                                typed<DoubleTypes>(newer), stream_);
      if (wave_.steps % 2 != 0) {
        std::swap(older, newer);
      }
    }
    // Pairs of steps replay a captured CUDA graph (two steps return the buffers to their roles):
    // one launch instead of one to five per step, NCCL calls included. On a slab a pair must also
    // return the halo schedule to where it was, so that each replay exchanges as the capture did
    // (with k halo slices, a pattern of period k: pairs repeat for k = 1, 2).
    while (n < steps) {
      if (use_graphs_ && steps - n >= 2 && pair_repeats(older, newer)) {
        DECGPE_CUDA_CHECK(cudaGraphLaunch(pair_graph(older, newer), stream_));
        n += 2;
      } else {
        enqueue_leapfrog(older, newer);
        std::swap(older, newer);
        ++n;
      }
    }
  }

  void rk4_stage(const Rk4Stage& s) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      const Rk4Vectors<Types> v{typed<Types>(s.input),
                                s.stage == 3 ? nullptr : typed<Types>(s.base), typed<Types>(s.acc),
                                typed<Types>(s.next)};
      stencil(plan(access(s)), [&](int z_begin, int z_end, cudaStream_t stream) {
        launch_rk4_stage<Types>(stencil_tiling_, dg_, s, v, z_begin, z_end, stream);
      });
    });
  }

  void rk4_stages(const std::array<Rk4Stage, 4>& s) override {
    if (rk4_blocking_.steps != 2 || !rk4_chain(s)) {
      Backend::rk4_stages(s);
      return;
    }
    if (spare_rk4_.get() == nullptr) {
      reserve(static_cast<double>(vector_bytes()));
      spare_rk4_ = DeviceBuffer<std::byte>(vector_bytes());
    }
    const auto values = [this](VectorId v) { return typed<DoubleTypes>(v); };
    launch_rk4_pair(dg_, rk4_blocking_,
                    {false,
                     values(s[0].input),
                     nullptr,
                     nullptr,
                     values(s[0].acc),
                     values(s[1].next),
                     {s[0].acc_tau, s[0].next_tau, s[1].acc_tau, s[1].next_tau}},
                    stream_);
    launch_rk4_pair(dg_, rk4_blocking_,
                    {true,
                     values(s[2].input),
                     values(s[0].base),
                     values(s[0].acc),
                     nullptr,
                     reinterpret_cast<Complex*>(spare_rk4_.get()),
                     {s[2].acc_tau, s[2].next_tau, s[3].acc_tau, 0.0}},
                    stream_);
    std::swap(vectors_[static_cast<std::size_t>(s[3].next)], spare_rk4_); // the step's ψ
  }

  void rotate_faces(const FaceSweep& s) override {
    const std::int8_t* faces = colouring_table() + s.colour * kParities * p_.grid.ms;
    const Complex* k = rotation_table(s.tau);
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      const Stored<Types>* in = typed<Types>(s.in);
      Stored<Types>* out = typed<Types>(s.out);
      stencil(plan(access(s)), [&](int z_begin, int z_end, cudaStream_t stream) {
        launch_rotate_faces<Types>(cell_tiling_, dg_, in, out, faces, k, s.phase_tau, z_begin,
                                   z_end, stream);
      });
    });
  }

  void polynomial_term(const PolynomialTerm& t) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      const PolynomialVectors<Types> v{typed<Types>(t.in),
                                       t.prev == kNoVector ? nullptr : typed<Types>(t.prev),
                                       typed<Types>(t.out), typed<Types>(t.acc)};
      stencil(plan(access(t)), [&](int z_begin, int z_end, cudaStream_t stream) {
        launch_polynomial_term<Types>(stencil_tiling_, dg_, t, v, z_begin, z_end, stream);
      });
    });
  }

  void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      launch_axpby<Types>(p_.grid.cells(), typed<Types>(out), a, typed<Types>(x), b,
                          typed<Types>(y), stream_);
    });
    schedule_.pointwise(out, {x, y});
  }

  void rotate_phase(VectorId v, double tau) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      launch_rotate_phase<Types>(cell_tiling_, dg_, typed<Types>(v), tau, stream_);
    });
  }

  void synchronize() override { DECGPE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  std::unique_ptr<WorkTimer> work_timer() override {
    return std::make_unique<DeviceTimer>(stream_);
  }
  void flush_caches() override { flush_l2(); }
  long steps_per_launch() const override { return std::max(wave_.steps, blocking_.steps); }

  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    stencil(plan(diagnostics_access(current, previous, reference)),
            [](int, int, cudaStream_t) {}); // for ½Lψ
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      const Stored<Types>* before = previous == kNoVector ? nullptr : typed<Types>(previous);
      if (rotates()) {
        launch_diagnostics(cell_tiling_, dg_, before, typed<Types>(current),
                           typed<Types>(reference), rotating_partials_.get(),
                           rotating_result_.get(), stream_);
      } else {
        launch_diagnostics(cell_tiling_, dg_, before, typed<Types>(current),
                           typed<Types>(reference), partials_.get(), result_.get(), stream_);
      }
    });
    return rotates() ? Diagnostics::from(read_back(rotating_result_.get()))
                     : Diagnostics::from(read_back(result_.get()));
  }

  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      launch_step_maxima(cell_tiling_, dg_, typed<Types>(x),
                         y == kNoVector ? nullptr : typed<Types>(y), density_floor,
                         step_partials_.get(), step_result_.get(), stream_);
    });
    DECGPE_CUDA_CHECK(cudaMemcpyAsync(host_step_result_, step_result_.get(), sizeof(StepSums),
                                      cudaMemcpyDeviceToHost, stream_));
    synchronize();
    return StepMaxima::from(*host_step_result_);
  }

  std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) override {
    return vortex_flux_later(psi, potential_cut).get();
  }

  /// The run's thread only queues: the flux kernel on the main stream, into a byte per edge
  /// instance that the next steps leave alone, and the count's copy on the flux stream. Whoever
  /// collects the list waits for the count and compacts it there (collect_pierced). The ring
  /// table went up once; the list's buffers grow to the most edges seen pierced.
  std::future<std::vector<PiercedEdge>> vortex_flux_later(VectorId psi,
                                                          double potential_cut) override {
    stencil(plan(vortex_flux_access(psi)), [](int, int, cudaStream_t) {}); // the rings' halos
    if (flux_of_d_.get() == nullptr) {
      allocate_flux();
    }
    with_precision(p_.precision, [&](auto types) {
      launch_vortex_flux(ring_grid(p_.grid), ring_begin_d_.get(), rings_d_.get(), ring_edges_, dg_,
                         typed<decltype(types)>(psi), p_.grid.owned_begin, p_.grid.owned_end,
                         potential_cut, flux_of_d_.get(), found_d_.get(), stream_);
    });
    DECGPE_CUDA_CHECK(cudaEventRecord(flux_found_, stream_));
    DECGPE_CUDA_CHECK(cudaStreamWaitEvent(flux_stream_, flux_found_));
    DECGPE_CUDA_CHECK(cudaMemcpyAsync(found_host_.get(), found_d_.get(), sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, flux_stream_));
    return std::async(std::launch::deferred, [this] { return collect_pierced(); });
  }

private:
  bool rotates() const { return p_.potential.rotation.active(); }

  /// The vortex flux's ring table, once (its lists grow when a flux is first asked for).
  void upload_rings() {
    const RingTable rings = make_ring_table(p_.grid);
    ring_begin_d_ = to_device(rings.begin);
    rings_d_ = to_device(rings.entries);
    ring_edges_ = rings.edges();
    for (int e = 0; e < ring_edges_; ++e) { // a ring of n cells winds at most n/2 times
      if (rings.begin[e + 1] - rings.begin[e] > 2 * std::numeric_limits<std::int8_t>::max()) {
        throw std::logic_error("a ring of the lattice is too long for the flux's byte");
      }
    }
    found_d_ = DeviceBuffer<unsigned long long>(1);
    selected_d_ = DeviceBuffer<unsigned long long>(1);
  }

  /// The edge instances of the owned slices: the flux kernel's bytes.
  long long flux_instances() const {
    return static_cast<long long>(ring_edges_) * p_.grid.size[0] * p_.grid.size[1] *
           (p_.grid.owned_end - p_.grid.owned_begin);
  }

  void allocate_flux() {
    const long long instances = flux_instances();
    const std::size_t scratch = pierced_select_bytes(instances);
    reserve(static_cast<double>(instances) + static_cast<double>(scratch));
    flux_of_d_ = DeviceBuffer<std::int8_t>(static_cast<std::size_t>(instances));
    select_scratch_d_ = DeviceBuffer<std::byte>(scratch);
  }

  /// On the thread that collects the list: the count, then the pierced bytes compacted in
  /// instance order (edge-id order: no sort) and copied to the host, all on the flux stream.
  std::vector<PiercedEdge> collect_pierced() {
    DECGPE_CUDA_CHECK(cudaSetDevice(device_));
    DECGPE_CUDA_CHECK(cudaStreamSynchronize(flux_stream_));
    const unsigned long long found = *found_host_.get();
    if (found == 0) {
      return {};
    }
    if (found > pierced_capacity_) {
      grow_pierced(found);
    }
    const long long first_id = static_cast<long long>(ring_edges_) * p_.grid.size[0] *
                               p_.grid.size[1] * (p_.grid.owned_begin + p_.grid.z_offset);
    launch_select_pierced(flux_of_d_.get(), flux_instances(), first_id, pierced_d_.get(),
                          selected_d_.get(), select_scratch_d_.get(), select_scratch_d_.size(),
                          flux_stream_);
    DECGPE_CUDA_CHECK(cudaMemcpyAsync(pierced_host_.get(), pierced_d_.get(),
                                      found * sizeof(PiercedEdge), cudaMemcpyDeviceToHost,
                                      flux_stream_));
    DECGPE_CUDA_CHECK(cudaStreamSynchronize(flux_stream_));
    return std::vector<PiercedEdge>(pierced_host_.get(), pierced_host_.get() + found);
  }

  /// Room for `count` pierced edges, on the device and in the host's copy.
  void grow_pierced(unsigned long long count) {
    reserve(static_cast<double>(count) * sizeof(PiercedEdge));
    pierced_d_ = DeviceBuffer<PiercedEdge>(count);
    pierced_host_ = PinnedBuffer<PiercedEdge>(count);
    pierced_capacity_ = count;
  }

  /// A device reduction's result, through the pinned buffer.
  template <class Sums> Sums read_back(const Sums* result) {
    static_assert(sizeof(Sums) <= sizeof(RotatingSums));
    DECGPE_CUDA_CHECK(
        cudaMemcpyAsync(host_result_, result, sizeof(Sums), cudaMemcpyDeviceToHost, stream_));
    synchronize();
    Sums sums;
    std::memcpy(&sums, host_result_, sizeof(Sums));
    return sums;
  }

  std::byte* at(VectorId v) const {
    if (v < 0 || static_cast<std::size_t>(v) >= vectors_.size() || vectors_[v].get() == nullptr) {
      throw std::logic_error("no such vector: " + std::to_string(v));
    }
    return vectors_[static_cast<std::size_t>(v)].get();
  }
  /// Vector v as the values of the precision Types (the run's: with_precision).
  template <class Types> Stored<Types>* typed(VectorId v) const {
    return reinterpret_cast<Stored<Types>*>(at(v));
  }
  /// A vector's bytes: half in single and mixed.
  std::size_t vector_bytes() const {
    return static_cast<std::size_t>(p_.grid.cells()) *
           static_cast<std::size_t>(value_bytes(p_.precision));
  }

  void check_size(std::size_t n) const {
    if (n != static_cast<std::size_t>(p_.grid.cells())) {
      throw std::invalid_argument("a state of " + std::to_string(n) + " values for a grid of " +
                                  std::to_string(p_.grid.cells()) + " cells");
    }
  }

  /// Fails with one line, before allocating, when `bytes` more do not fit in the free memory.
  void reserve(double bytes) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    DECGPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > static_cast<double>(free_bytes)) {
      throw std::runtime_error("GPU out of memory: " + std::to_string(p_.grid.cells()) +
                               " cells need " + gib(bytes) + " more, " + device_name_ + " has " +
                               gib(static_cast<double>(free_bytes)) + " free of " +
                               gib(static_cast<double>(total_bytes)));
    }
  }

  /// How a stencil kernel runs: over the owned slices of a whole domain, or as the slab's
  /// schedule plans it.
  StencilPlan plan(const KernelAccess& kernel) {
    if (halo_ == nullptr) {
      return {{}, {p_.grid.owned_begin, p_.grid.owned_end}, {}};
    }
    return schedule_.stencil(kernel);
  }

  /// Runs launch(z_begin, z_end, stream) over the slices of `plan`. With an exchange, the slices
  /// needing no halo go on the main stream at once; the exchange, then the rest, on the edge
  /// stream, which the main stream waits for.
  template <class Launch> void stencil(const StencilPlan& plan, Launch&& launch) {
    if (plan.exchange.empty()) {
      launch(plan.during.begin, plan.during.end, stream_);
      return;
    }
    std::vector<std::byte*> fields;
    for (const VectorId v : plan.exchange) {
      fields.push_back(at(v));
    }
    DECGPE_CUDA_CHECK(cudaEventRecord(fork_, stream_));
    DECGPE_CUDA_CHECK(cudaStreamWaitEvent(edge_stream_, fork_));
    halo_->begin(fields, edge_stream_);
    if (!plan.during.empty()) {
      launch(plan.during.begin, plan.during.end, stream_);
    }
    halo_->end(edge_stream_);
    for (const SliceRange& r : plan.after) {
      if (!r.empty()) {
        launch(r.begin, r.end, edge_stream_);
      }
    }
    DECGPE_CUDA_CHECK(cudaEventRecord(join_, edge_stream_));
    DECGPE_CUDA_CHECK(cudaStreamWaitEvent(stream_, join_));
  }

  /// The tilings of the leapfrog, the other stencil passes and the one-slice kernels, and the
  /// wavefront, on `sms` multiprocessors.
  void plan_kernels(const BackendTuning& tuning, int sms) {
    const PlainShape shape = parse_plain_shape(shape_.value);
    tiling_ = make_leapfrog_tiling(dg_, shape, p_.precision, p_.grid.lattice, sms);
    if (rotates() && !tiling_.sweep) { // the rotating frame's step is the sweep's alone
      tiling_ = make_cell_tiling(dg_);
      shape_.source += "; the rotating frame steps as a sweep of one slice a block";
    }
    cell_tiling_ = make_cell_tiling(dg_);
    stencil_tiling_ = make_passes_tiling(dg_, shape, p_.grid.lattice, sms);
    plan_wavefront(tuning, shape, sms);
    plan_rk4_pairs(tuning.value("cuda.rk4_stages_per_sweep"), sms);
  }

  /// The reductions' partial sums (the frame's and the lab's in a rotating frame), checked against
  /// the free memory with a tabulated potential's values.
  void allocate_reductions() {
    const auto partial_count = static_cast<std::size_t>(diagnostics_blocks(cell_tiling_, dg_));
    const std::size_t sums_size = rotates() ? sizeof(RotatingSums) : sizeof(CellSums);
    reserve(static_cast<double>(p_.potential.values.size()) * sizeof(double) +
            static_cast<double>(partial_count) * static_cast<double>(sums_size + sizeof(StepSums)));
    if (rotates()) {
      rotating_partials_ = DeviceBuffer<RotatingSums>(partial_count);
      rotating_result_ = DeviceBuffer<RotatingSums>(1);
    } else {
      partials_ = DeviceBuffer<CellSums>(partial_count);
      result_ = DeviceBuffer<CellSums>(1);
    }
    step_partials_ = DeviceBuffer<StepSums>(partial_count);
    step_result_ = DeviceBuffer<StepSums>(1);
  }

  /// The main stream, the vortex flux's, and on a slab the edge stream of the highest priority
  /// with its events.
  void create_streams() {
    DECGPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    DECGPE_CUDA_CHECK(cudaStreamCreateWithFlags(&flux_stream_, cudaStreamNonBlocking));
    DECGPE_CUDA_CHECK(cudaEventCreateWithFlags(&flux_found_, cudaEventDisableTiming));
    if (halo_ != nullptr) {
      int least = 0, greatest = 0;
      DECGPE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      DECGPE_CUDA_CHECK(
          cudaStreamCreateWithPriority(&edge_stream_, cudaStreamNonBlocking, greatest));
      DECGPE_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
      DECGPE_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    }
  }

  /// cuda.steps_per_sweep's k steps a launch: the temporal blocking (on a slab too, where its
  /// halos hold k slices) or the wavefront (one GPU only), its order and counters on the device.
  void plan_wavefront(const BackendTuning& tuning, PlainShape shape, int sms) {
    const std::string given = tuning.value("cuda.steps_per_sweep");
    const auto [steps, wavefront] = count_and_shape(given, "cuda.steps_per_sweep");
    if (steps < 1 || steps > 8) {
      throw std::invalid_argument("cuda.steps_per_sweep must be 1 to 8, got " +
                                  std::to_string(steps));
    }
    steps_per_sweep_ = {std::to_string(steps), given.empty() ? "default" : "case"};
    wavefront_shape_ = {wavefront.empty() ? "s1l4r4b8" : wavefront,
                        wavefront.empty() ? "default" : "case"};
    if (steps == 1) {
      return;
    }
    // The default: the temporal blocking where an instance is one cell (measured faster than the
    // wavefront there, docs/gpu.md), else the wavefront.
    const bool blocked = wavefront.empty() ? p_.grid.ms == 1 && steps <= kMostBlockedSteps
                                           : wavefront.front() == 'x';
    if (const std::string why = steps_unavailable(blocked, steps); !why.empty()) {
      steps_per_sweep_ = {"1", why};
      return;
    }
    if (blocked) {
      plan_blocking(wavefront, steps);
      return;
    }
    const WavefrontShape w = parse_wavefront(wavefront_shape_.value);
    if (!shape.sweep) { // the wavefront's tickets are a sweep's blocks: 256 threads, one row
      shape = parse_plain_shape("sweep");
    }
    shape.fits_grid = false;
    shape.pairs = false; // FP64: the wavefront steps one cell a thread
    shape.slices = w.slab;
    wavefront_tiling_ = make_tiling(dg_, shape, sms);
    const int slabs = (p_.grid.size[2] + w.slab - 1) / w.slab;
    const int bands = (p_.grid.size[1] + w.rows - 1) / w.rows;
    order_d_ = to_device(wavefront_order(steps, slabs, bands, w.lag));
    counters_d_ = DeviceBuffer<unsigned>(1 + static_cast<std::size_t>(steps) * slabs * bands);
    wave_ = {steps, w.slab, slabs, w.rows, bands, 0, order_d_.get(), counters_d_.get()};
    wave_.blocks = wavefront_blocks(wavefront_tiling_, dg_, wave_, w.blocks, sms);
  }

  /// Why the leapfrog steps one at a time, "" where a kernel takes k steps a launch: both step in
  /// double and the lab frame only; on a slab, the temporal blocking where its halos hold k slices
  /// (their exchange then comes before a launch, HaloSchedule::leapfrog_launch()), the wavefront
  /// walks a whole domain.
  std::string steps_unavailable(bool blocked, int steps) const {
    if (rotates()) {
      return "the rotating frame steps one at a time";
    }
    if (p_.precision != Precision::double_) {
      return std::string(precision_name(p_.precision)) + " precision steps one at a time";
    }
    if (halo_ == nullptr && dg_.z_offset == 0 && dg_.sz == dg_.global_z) {
      return "";
    }
    if (!blocked) {
      return "a slab steps one at a time where the temporal blocking does not run";
    }
    const int depth = p_.grid.halo_depth();
    if (halo_ == nullptr || depth < steps) {
      return "a slab of " + std::to_string(depth) + " halo slices steps one at a time (" +
             std::to_string(steps) + " steps a launch need " + std::to_string(steps) + ")";
    }
    return "";
  }

  /// The temporal blocking of `steps` steps a launch with the case's shape or the default one. A
  /// grown tile's levels must fit a block's shared memory: a shape given that does not is refused,
  /// the default steps one at a time (on a GPU with less shared memory than the H100's).
  void plan_blocking(const std::string& given, int steps) {
    if (steps > kMostBlockedSteps || p_.grid.ms > kMostBlockedCells) {
      throw std::invalid_argument(
          "cuda.steps_per_sweep: the temporal blocking takes 2 to " +
          std::to_string(kMostBlockedSteps) + " steps on lattices of at most " +
          std::to_string(kMostBlockedCells) + " cells an instance, got " + std::to_string(steps) +
          " steps on " + p_.grid.lattice + " (" + std::to_string(p_.grid.ms) + " cells)");
    }
    blocked_shape_ = {given.empty() ? "x32y8z64" : given, given.empty() ? "default" : "case"};
    const Blocking b = make_blocking(dg_, parse_blocked(blocked_shape_.value), steps);
    const std::size_t limit = blocked_shared_limit();
    if (b.shared_bytes <= limit) {
      blocking_ = b;
      return;
    }
    const std::string why = std::to_string(steps) + " steps on tiles of " + blocked_shape_.value +
                            " keep " + std::to_string(b.shared_bytes / 1024) +
                            " KiB a block in shared memory, more than the " +
                            std::to_string(limit / 1024) + " KiB the GPU allows";
    if (!given.empty()) {
      throw std::invalid_argument("cuda.steps_per_sweep: " + why);
    }
    steps_per_sweep_ = {"1", why};
  }

  /// RK4's stages two a pass (cuda.rk4_stages_per_sweep = 2, a tile shape after it as the
  /// temporal blocking's: "2x16y8z64"), where the passes' tiles fit: double precision, the lab
  /// frame, one GPU, instances of at most kMostBlockedCells cells. A shape given that does not fit
  /// shared memory is refused; otherwise the stages run one a pass, and the setting says why.
  /// Unset: two a pass where an instance is one cell (cubic: 1.35× on the H100 at 64M cells,
  /// docs/gpu.md) and the tiles fill the GPU (at 1M cells, 104 blocks, a pass of two took 2.3× the
  /// time of two of one), one elsewhere (slower there: the grown rims of larger instances).
  void plan_rk4_pairs(const std::string& given, int sms) {
    const auto [stages, shape] = count_and_shape(given, "cuda.rk4_stages_per_sweep");
    if (stages < 1 || stages > 2 || (!shape.empty() && shape.front() != 'x')) {
      throw std::invalid_argument("cuda.rk4_stages_per_sweep must be 1 or 2 (then optionally a "
                                  "tile x<>y<>z<>), got '" +
                                  given + "'");
    }
    const std::string source = given.empty() ? "default" : "case";
    rk4_stages_ = {"1", source};
    if (given.empty() ? p_.grid.ms != 1 : stages == 1) { // the default: pairs where they paid
      return;
    }
    const std::string why = rk4_pairs_unavailable();
    if (!why.empty()) {
      rk4_stages_ = {"1", why};
      return;
    }
    const std::string tile = shape.empty() ? default_rk4_tile() : shape;
    const Blocking b = make_blocking(dg_, parse_blocked(tile), 2);
    const std::size_t limit = blocked_shared_limit();
    if (b.shared_bytes > limit) {
      const std::string over = "RK4's pairs of stages on tiles of " + tile + " keep " +
                               std::to_string(b.shared_bytes / 1024) + " KiB a block, more than " +
                               "the " + std::to_string(limit / 1024) + " KiB the GPU allows";
      if (!shape.empty()) {
        throw std::invalid_argument("cuda.rk4_stages_per_sweep: " + over);
      }
      rk4_stages_ = {"1", over};
      return;
    }
    const long long blocks = static_cast<long long>(b.tiles_x) * b.tiles_y * b.chunks;
    if (given.empty() && blocks < kRk4PairBlocksPerSm * sms) {
      rk4_stages_ = {"1", "the default tile makes " + std::to_string(blocks) +
                              " blocks, fewer than " + std::to_string(kRk4PairBlocksPerSm) +
                              " an SM"};
      return;
    }
    rk4_blocking_ = b;
    rk4_stages_ = {"2" + tile, source};
  }

  /// Why RK4's stages cannot pair here, "" where they can.
  std::string rk4_pairs_unavailable() const {
    if (rotates()) {
      return "the rotating frame's stages run one a pass";
    }
    if (p_.precision != Precision::double_) {
      return std::string(precision_name(p_.precision)) + " precision's stages run one a pass";
    }
    if (halo_ != nullptr || dg_.z_offset != 0 || dg_.sz != dg_.global_z) {
      return "a slab's stages run one a pass";
    }
    if (p_.grid.ms > kMostBlockedCells) {
      return "instances of " + std::to_string(p_.grid.ms) + " cells: the tiles' slices do not " +
             "fit shared memory";
    }
    return "";
  }

  /// The tile of the pairs' passes: the temporal blocking's where an instance is one cell, else
  /// a small one (the grown rim costs 12 cells an instance on BCC).
  std::string default_rk4_tile() const { return p_.grid.ms == 1 ? "x32y8z64" : "x8y4z64"; }

  /// Whether four stages chain as rk4_step() writes them, so that two passes compute them: each
  /// stage's input the one before's next, one base (ψ, which neither pass writes) and one acc.
  static bool rk4_chain(const std::array<Rk4Stage, 4>& s) {
    const VectorId psi = s[0].input, acc = s[0].acc;
    bool chained = s[0].base == psi && acc != psi && s[1].next != psi && s[1].next != acc;
    for (int j = 1; j < 4; ++j) {
      chained = chained && s[j].stage == j && s[j].input == s[j - 1].next && s[j].acc == acc &&
                (j == 3 || s[j].base == psi);
    }
    return chained && s[0].stage == 0;
  }

  /// One launch of blocking_.steps steps from (older, newer) into the spare pair, whose buffers
  /// then take the two vectors' places: `older` holds level k − 1, `newer` level k for even k
  /// (the single steps' roles), the other way round for odd k.
  void blocked_sweep(VectorId older, VectorId newer) {
    if (spare_previous_.get() == nullptr) {
      reserve(2.0 * static_cast<double>(vector_bytes()));
      spare_previous_ = DeviceBuffer<std::byte>(vector_bytes());
      spare_last_ = DeviceBuffer<std::byte>(vector_bytes());
    }
    const StencilPlan plan = halo_ == nullptr
                                 ? StencilPlan{{}, {0, p_.grid.size[2]}, {}}
                                 : schedule_.leapfrog_launch(older, newer, blocking_.steps);
    stencil(plan, [&](int, int, cudaStream_t stream) { // one launch: every stored slice
      launch_leapfrog_blocked(dg_, blocking_, typed<DoubleTypes>(older), typed<DoubleTypes>(newer),
                              reinterpret_cast<Complex*>(spare_previous_.get()),
                              reinterpret_cast<Complex*>(spare_last_.get()), stream);
    });
    const bool odd = blocking_.steps % 2 != 0;
    std::swap(vectors_[static_cast<std::size_t>(odd ? newer : older)], spare_previous_);
    std::swap(vectors_[static_cast<std::size_t>(odd ? older : newer)], spare_last_);
  }

  /// One fused leapfrog step, older ← older − 2iΔt M(newer)·newer, on the stream.
  void enqueue_leapfrog(VectorId older, VectorId newer) {
    with_precision(p_.precision, [&](auto types) {
      using Types = decltype(types);
      const Stored<Types>* psi = typed<Types>(newer);
      Stored<Types>* out = typed<Types>(older);
      stencil(plan(leapfrog_access(older, newer)),
              [&](int z_begin, int z_end, cudaStream_t stream) {
                launch_step<Types>(tiling_, dg_, psi, out, z_begin, z_end, stream);
              });
    });
  }

  /// Whether two leapfrog steps from (older, newer) leave the halo schedule as it is.
  bool pair_repeats(VectorId older, VectorId newer) const {
    if (halo_ == nullptr) {
      return true;
    }
    HaloSchedule after = schedule_;
    after.stencil(leapfrog_access(older, newer));
    after.stencil(leapfrog_access(newer, older));
    return after == schedule_;
  }

  /// Two leapfrog steps from (older, newer), captured once per pair of buffers, Δt and halo state.
  cudaGraphExec_t pair_graph(VectorId older, VectorId newer) {
    const PairGraph key{at(older), at(newer), schedule_.current(older), schedule_.current(newer),
                        nullptr};
    for (const PairGraph& p : graphs_) {
      if (p.older == key.older && p.newer == key.newer && p.older_current == key.older_current &&
          p.newer_current == key.newer_current) {
        return p.exec;
      }
    }
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    DECGPE_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    enqueue_leapfrog(older, newer);
    enqueue_leapfrog(newer, older);
    DECGPE_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    DECGPE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    DECGPE_CUDA_CHECK(cudaGraphDestroy(graph));
    graphs_.push_back({key.older, key.newer, key.older_current, key.newer_current, exec});
    return exec;
  }

  void forget_graphs() {
    for (const PairGraph& p : graphs_) {
      cudaGraphExecDestroy(p.exec);
    }
    graphs_.clear();
  }

  /// The face colouring on the device, uploaded on first use.
  const std::int8_t* colouring_table() {
    if (colouring_d_.get() == nullptr) {
      colouring_d_ = to_device(face_colouring(p_.grid).face);
    }
    return colouring_d_.get();
  }

  /// face_rotations(τ) face-major on the device, computed once per τ.
  const Complex* rotation_table(double tau) {
    for (const auto& [t, table] : rotations_d_) {
      if (t == tau) {
        return table.get();
      }
    }
    const Grid& g = p_.grid;
    const std::vector<Complex> rows = face_rotations(g, tau);
    std::vector<Complex> face_major(2 * static_cast<std::size_t>(dg_.max_faces * g.ms));
    for (int l = 0; l < g.ms; ++l) {
      for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
        const auto slot = 2 * static_cast<std::size_t>((e - g.row_begin[l]) * g.ms + l);
        face_major[slot] = rows[2 * static_cast<std::size_t>(e)];
        face_major[slot + 1] = rows[2 * static_cast<std::size_t>(e) + 1];
      }
    }
    return rotations_d_.emplace_back(tau, to_device(face_major)).second.get();
  }

  /// Face-major stencil tables, padded to the most faces any cell has, and the per-local-index
  /// data.
  void build_tables() {
    const Grid& g = p_.grid;
    int faces = 0;
    for (int l = 0; l < g.ms; ++l) {
      faces = std::max(faces, g.row_begin[l + 1] - g.row_begin[l]);
    }
    const std::vector<FaceEntry> table = face_table(g, faces);
    std::vector<double> centre, volume(g.volume), weight_sum(g.weight_sum);
    for (int l = 0; l < g.ms; ++l) {
      centre.insert(centre.end(), {g.centre[l].x, g.centre[l].y, g.centre[l].z});
    }
    const std::vector<int> by_faces = most_faces_first(g);
    const auto wide_cells =
        static_cast<int>(std::count_if(by_faces.begin(), by_faces.end(), [&](int l) {
          return g.row_begin[l + 1] - g.row_begin[l] == faces;
        }));
    if (faces == 4 && wide_cells != g.ms) { // the sweep reads 4 faces a cell untested (sweep.cuh)
      throw std::logic_error("a lattice of 4 faces at most whose cells do not all have 4");
    }
    faces_d_ = to_device(table);
    by_faces_d_ = to_device(by_faces);
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
                     by_faces_d_.get(),
                     wide_cells,
                     p_.potential.lambda,
                     p_.g,
                     0.0,
                     p_.potential.rotation.omega,
                     {p_.potential.rotation.x0, p_.potential.rotation.y0},
                     most_hop_slots(g)};
  }

  struct PairGraph {
    const std::byte* older;
    const std::byte* newer;
    SliceRange older_current, newer_current; ///< the halo schedule it was captured in
    cudaGraphExec_t exec;
  };

  const Problem& p_;
  HaloExchange* halo_;
  HaloSchedule schedule_; ///< used on a slab only
  std::string device_name_;
  DeviceGrid dg_{};
  Tiling tiling_{};         ///< the leapfrog kernel's
  Tiling cell_tiling_{};    ///< one slice a block: the colour sweeps, pointwise kernels, sums
  Tiling stencil_tiling_{}; ///< M·ψ, the RK4 stages, the Chebyshev terms (make_passes_tiling)
  DeviceBuffer<FaceEntry> faces_d_;
  DeviceBuffer<double> centre_d_, volume_d_, weight_sum_d_, potential_;
  DeviceBuffer<int> by_faces_d_;
  std::vector<DeviceBuffer<std::byte>> vectors_; ///< by VectorId; a destroyed one is empty
  DeviceBuffer<CellSums> partials_, result_;     ///< the lab frame's sums
  DeviceBuffer<RotatingSums> rotating_partials_, rotating_result_; ///< a rotating frame's
  DeviceBuffer<StepSums> step_partials_, step_result_;
  DeviceBuffer<std::int8_t> colouring_d_;
  DeviceBuffer<std::int32_t> ring_begin_d_; ///< RingTable's, uploaded once
  DeviceBuffer<RingEntry> rings_d_;
  int ring_edges_ = 0;
  DeviceBuffer<std::int8_t> flux_of_d_;      ///< the last vortex_flux's flux of every edge instance
  DeviceBuffer<unsigned long long> found_d_; ///< how many are not 0, counted on the device
  PinnedBuffer<unsigned long long> found_host_{1};
  DeviceBuffer<std::byte> select_scratch_d_;
  DeviceBuffer<PiercedEdge> pierced_d_;         ///< the pierced ones, by edge id
  DeviceBuffer<unsigned long long> selected_d_; ///< the select's count (found_d_'s again)
  unsigned long long pierced_capacity_ = 0;
  PinnedBuffer<PiercedEdge> pierced_host_; ///< the list on the host
  cudaStream_t flux_stream_ = nullptr;     ///< the count's copy, the select and the list's copy
  cudaEvent_t flux_found_ = nullptr;       ///< the flux kernel done, on the main stream
  int device_ = 0;
  std::vector<std::pair<double, DeviceBuffer<Complex>>> rotations_d_; ///< per τ
  cudaStream_t stream_ = nullptr;
  cudaStream_t edge_stream_ = nullptr;          ///< a slab's exchanges and edge slices
  cudaEvent_t fork_ = nullptr, join_ = nullptr; ///< between stream_ and edge_stream_
  void* host_result_ = nullptr;                 ///< pinned, room for RotatingSums
  StepSums* host_step_result_ = nullptr;
  Setting shape_; ///< the plain kernel's block
  Setting steps_per_sweep_, wavefront_shape_;
  Tiling wavefront_tiling_{};
  DeviceBuffer<int2> order_d_;
  DeviceBuffer<unsigned> counters_d_;
  Wavefront wave_{1, 1, 0, 1, 0, 0, nullptr, nullptr}; ///< steps 1: no wavefront
  Setting blocked_shape_;
  Blocking blocking_{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  ///< steps 1: no temporal blocking
  DeviceBuffer<std::byte> spare_previous_, spare_last_; ///< its outputs, swapped into the vectors
  Setting rk4_stages_;                                  ///< RK4's stages a pass, and the tile
  Blocking rk4_blocking_{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}; ///< steps 1: a stage a pass
  DeviceBuffer<std::byte> spare_rk4_; ///< the second pass's output, swapped into the step's ψ
  Setting graphs_setting_;            ///< leapfrog pairs as CUDA graphs
  bool use_graphs_;
  std::vector<PairGraph> graphs_; ///< two leapfrog steps per pair of buffers, at dg_.two_dt
};

} // namespace

std::uint64_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (device_count() == 0 || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    return 0;
  }
  return free_bytes;
}

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::string why_unavailable() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess) {
    return count == 0 ? "no NVIDIA GPU found (cudaGetDeviceCount: 0 devices)" : "";
  }
  const std::string error = cudaGetErrorName(status);
  if (status == cudaErrorNoDevice) {
    return "no NVIDIA GPU found (" + error + ")";
  }
  if (status == cudaErrorInsufficientDriver) {
    // The runtime reports a missing driver as an insufficient one; the driver's version, 0 where
    // none is installed, tells the two apart.
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
      return "no NVIDIA driver found, so no GPU to run on (" + error + ")";
    }
    cudaRuntimeGetVersion(&runtime);
    return "the NVIDIA driver supports CUDA " + cuda_version(driver) +
           ", older than this build's " + cuda_version(runtime) + " (" + error + ")";
  }
  return "no usable CUDA device (" + error + ": " + cudaGetErrorString(status) + ")";
}

bool device_available() {
  return why_unavailable().empty();
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

void flush_l2() {
  int device = 0, l2_bytes = 0;
  DECGPE_CUDA_CHECK(cudaGetDevice(&device));
  DECGPE_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const DeviceBuffer<char> scratch(2 * static_cast<std::size_t>(l2_bytes));
  DECGPE_CUDA_CHECK(cudaMemset(scratch.get(), 0, 2 * static_cast<std::size_t>(l2_bytes)));
  DECGPE_CUDA_CHECK(cudaDeviceSynchronize());
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

std::unique_ptr<Backend> make_cuda(const Problem& problem, HaloExchange* halo,
                                   const BackendTuning& tuning) {
  if (const std::string why = why_unavailable(); !why.empty()) {
    throw std::runtime_error("backend 'cuda': " + why);
  }
  return std::make_unique<CudaBackend>(problem, halo, tuning);
}

} // namespace decgpe::cuda
