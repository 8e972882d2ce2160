#include "solvers/scaleout/slab_backend.hpp"

#include "solvers/backend_registry.hpp"
#include "solvers/diagnostic_fields.hpp"
#include "solvers/scaleout/calibration.hpp"
#include "solvers/scaleout/mpi_halo.hpp"
#include "solvers/scaleout/mpi_session.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/scaleout/nccl_halo.hpp"
#include "solvers/scaleout/staged_halo.hpp"
#endif

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace decgpe::scaleout {

namespace {

/// Every rank's `mine` (plain data) joined in rank order, and how many values each gave.
template <class T>
std::pair<std::vector<T>, std::vector<int>> gather_all(std::span<const T> mine, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const int bytes = static_cast<int>(mine.size_bytes());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets;
  MPI_Allgather(&bytes, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  int total = 0;
  for (const int l : lengths) {
    offsets.push_back(total);
    total += l;
  }
  std::vector<T> joined(static_cast<std::size_t>(total) / sizeof(T));
  MPI_Allgatherv(mine.data(), bytes, MPI_BYTE, joined.data(), lengths.data(), offsets.data(),
                 MPI_BYTE, comm);
  for (int& l : lengths) {
    l /= static_cast<int>(sizeof(T));
  }
  return {std::move(joined), std::move(lengths)};
}

/// Every rank's `mine`, in rank order.
std::vector<std::string> all_ranks(const std::string& mine, MPI_Comm comm) {
  const auto [joined, lengths] = gather_all(std::span<const char>(mine), comm);
  std::vector<std::string> every;
  std::size_t offset = 0;
  for (const int l : lengths) {
    every.emplace_back(joined.data() + offset, static_cast<std::size_t>(l));
    offset += static_cast<std::size_t>(l);
  }
  return every;
}

/// "ranks 0-2 X; rank 3 Y": runs of equal descriptions.
std::string by_rank(const std::vector<std::string>& every) {
  std::string text;
  for (std::size_t r = 0; r < every.size();) {
    std::size_t end = r + 1;
    while (end < every.size() && every[end] == every[r]) {
      ++end;
    }
    text += (text.empty() ? "" : "; ") + std::string(end - r > 1 ? "ranks " : "rank ") +
            std::to_string(r) + (end - r > 1 ? "-" + std::to_string(end - 1) : "") + " " + every[r];
    r = end;
  }
  return text;
}

class SlabBackend final : public Backend {
public:
  SlabBackend(std::string_view local, const Problem& slab, const Decomposition& layout,
              const BackendTuning& tuning)
      : slab_(slab), comm_(layout.comm()), ranks_(layout.ranks()),
        halo_depth_(std::to_string(layout.halo_depth()) +
                    (tuning.halo_depth ? " (case)" : " (default)")) {
    if (tuning.halo_depth && *tuning.halo_depth != layout.halo_depth()) {
      throw std::invalid_argument("the slabs were made with another halo depth than the case's");
    }
    const int lower = layout.lower(), upper = layout.upper();
    const BackendEntry& entry = backend_entry(local);
    if (!entry.runs_on_slabs) {
      throw std::invalid_argument("backend '" + std::string(entry.name) +
                                  "' cannot run over MPI ranks (use openmp or cuda)");
    }
    const int below = lower >= 0 ? lower : MPI_PROC_NULL,
              above = upper >= 0 ? upper : MPI_PROC_NULL;
    bind_device(entry.name, comm_);
    const int bytes = value_bytes(slab_.precision);
    if (entry.memory == MemorySpace::cuda_device) {
#if DECGPE_HAVE_CUDA
      // NCCL when every rank is a GPU rank; beside host ranks, MPI through pinned host buffers.
      if (backends_differ(entry.name, comm_)) {
        halo_ = std::make_unique<StagedHaloExchange>(slab_.grid, comm_, below, above, bytes);
      } else {
        halo_ = std::make_unique<NcclHaloExchange>(slab_.grid, comm_, lower, upper, bytes);
      }
#endif
    } else {
      backends_differ(entry.name, comm_); // collective: the GPU ranks ask it
      halo_ = std::make_unique<MpiHaloExchange>(slab_.grid, comm_, below, above, bytes);
    }
    local_ = make_backend(entry.name, slab_, halo_.get(), tuning);
    const auto names = all_ranks(local_->name(), comm_);
    for (const std::string& n : names) {
      if (std::find(names_.begin(), names_.end(), n) == names_.end()) {
        names_.push_back(n);
      }
    }
    devices_ = by_rank(all_ranks(local_->device() + ", " +
                                     std::to_string(layout.owned().end - layout.owned().begin) +
                                     " z-slices",
                                 comm_));
  }

  /// The ranks' backends, "cuda+openmp" when they differ.
  std::string name() const override {
    std::string joined;
    for (const std::string& n : names_) {
      joined += (joined.empty() ? "" : "+") + n;
    }
    return joined;
  }
  const Problem& problem() const override {
    return slab_;
  }
  std::string device() const override {
    return std::to_string(ranks_) + " MPI ranks: " + devices_;
  }

  VectorId create_vector() override {
    return local_->create_vector();
  }
  void destroy_vector(VectorId v) override {
    local_->destroy_vector(v);
  }
  void upload(VectorId v, std::span<const Complex> values) override {
    local_->upload(v, values);
  }
  void download(VectorId v, std::span<Complex> values) override {
    local_->download(v, values);
  }

  void apply_m(VectorId in, VectorId out) override {
    local_->apply_m(in, out);
  }
  void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) override {
    local_->leapfrog_steps(older, newer, dt, steps);
  }
  void rk4_stage(const Rk4Stage& stage) override {
    local_->rk4_stage(stage);
  }
  void rk4_stages(const std::array<Rk4Stage, 4>& stages) override {
    local_->rk4_stages(stages);
  }
  void rotate_faces(const FaceSweep& sweep) override {
    local_->rotate_faces(sweep);
  }
  void polynomial_term(const PolynomialTerm& term) override {
    local_->polynomial_term(term);
  }
  void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) override {
    local_->axpby(out, a, x, b, y);
  }
  void rotate_phase(VectorId v, double tau) override {
    local_->rotate_phase(v, tau);
  }
  void synchronize() override {
    local_->synchronize();
  }
  long steps_per_launch() const override {
    return local_->steps_per_launch();
  }
  std::vector<std::pair<std::string, std::string>> tuning() const override {
    auto settings = local_->tuning();
    settings.emplace_back("halo_depth", halo_depth_);
    return settings;
  }

  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    Diagnostics total = local_->diagnostics(current, previous, reference);
    std::vector<double> sums = {total.overlap.re, total.overlap.im};
    std::vector<double> maxima;
    for (const DiagnosticField& field : kDiagnosticFields) {
      (field.reduction == Reduction::sum ? sums : maxima).push_back(total.*field.value);
    }
    int finite = total.finite ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                  comm_);
    MPI_Allreduce(MPI_IN_PLACE, maxima.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX,
                  comm_);
    MPI_Allreduce(MPI_IN_PLACE, &finite, 1, MPI_INT, MPI_MIN, comm_);
    total.overlap = {sums[0], sums[1]};
    auto next_sum = sums.begin() + 2;
    auto next_max = maxima.begin();
    for (const DiagnosticField& field : kDiagnosticFields) {
      total.*field.value = *(field.reduction == Reduction::sum ? next_sum++ : next_max++);
    }
    total.finite = finite == 1;
    return total;
  }

  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    const StepMaxima mine = local_->step_maxima(x, y, density_floor);
    double maxima[2] = {mine.phase_rate, mine.difference};
    MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, comm_);
    return {maxima[0], maxima[1]};
  }

  /// Every rank's owned edges, sorted by edge id whatever the ranks' order of slabs.
  std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) override {
    const std::vector<PiercedEdge> mine = local_->vortex_flux(psi, potential_cut);
    std::vector<PiercedEdge> all = gather_all(std::span<const PiercedEdge>(mine), comm_).first;
    std::sort(all.begin(), all.end(),
              [](const PiercedEdge& a, const PiercedEdge& b) { return a.edge < b.edge; });
    return all;
  }

private:
  Problem slab_;
  MPI_Comm comm_;
  int ranks_ = 1;
  std::string halo_depth_;         ///< "k (source)", for the results
  std::vector<std::string> names_; ///< the ranks' backends, each once
  std::string devices_;            ///< what each rank runs on, by rank
  std::unique_ptr<HaloExchange> halo_;
  std::unique_ptr<Backend> local_;
};

} // namespace

void bind_device(std::string_view local, MPI_Comm comm) {
  const int on_node = node_local_rank(comm); // collective: every rank asks, whatever its backend
  if (backend_entry(local).memory != MemorySpace::cuda_device) {
    return;
  }
#if DECGPE_HAVE_CUDA
  int devices = 0;
  DECGPE_CUDA_CHECK(cudaGetDeviceCount(&devices));
  DECGPE_CUDA_CHECK(cudaSetDevice(on_node % devices));
#else
  (void)on_node;
#endif
}

std::unique_ptr<Backend> make_slab_backend(std::string_view local, const Problem& slab,
                                           const Decomposition& layout,
                                           const BackendTuning& tuning) {
  if (slab.grid.global_z != layout.global_z() || slab.grid.z_offset != layout.first()) {
    throw std::invalid_argument("the slab problem is not this rank's part of the domain");
  }
  return std::make_unique<SlabBackend>(local, slab, layout, tuning);
}

} // namespace decgpe::scaleout
