#include "solvers/scaleout/slab_backend.hpp"

#include "solvers/backend_registry.hpp"
#include "solvers/scaleout/mpi_halo.hpp"
#include "solvers/scaleout/mpi_session.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/scaleout/nccl_halo.hpp"
#endif

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace decgpe::scaleout {

namespace {

class SlabBackend final : public Backend {
public:
  SlabBackend(std::string_view local, const Problem& global, MPI_Comm comm,
              const BackendTuning& tuning)
      : global_(global), comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &ranks_);
    const Grid& g = global.grid;
    for (int r = 0; r < ranks_; ++r) {
      owned_.push_back(slab_range(r, ranks_, g.size[2]));
    }
    const SlabRange mine = owned_[static_cast<std::size_t>(rank_)];
    const int lower = rank_ > 0 ? rank_ - 1 : -1;
    const int upper = rank_ + 1 < ranks_ ? rank_ + 1 : -1;
    first_ = mine.begin - (lower >= 0 ? 1 : 0);
    last_ = mine.end + (upper >= 0 ? 1 : 0);
    slab_.grid = make_slab(g, first_, last_, mine.begin, mine.end);
    slab_.potential = global.potential;
    if (global.potential.kind == Potential::Kind::tabulated) {
      const auto n = static_cast<std::ptrdiff_t>(g.slice_cells());
      slab_.potential.values.assign(global.potential.values.begin() + first_ * n,
                                    global.potential.values.begin() + last_ * n);
    }
    slab_.g = global.g;
    MPI_Type_contiguous(2, MPI_DOUBLE, &complex_);
    MPI_Type_commit(&complex_);

    const std::string resolved = resolve_backend(local);
    const auto registry = backend_registry();
    const auto entry = std::find_if(registry.begin(), registry.end(),
                                    [&](const BackendEntry& e) { return e.name == resolved; });
    if (!entry->runs_on_slabs) {
      throw std::invalid_argument("backend '" + resolved +
                                  "' cannot run over MPI ranks (use openmp or cuda)");
    }
    if (entry->memory == BackendEntry::Memory::cuda_device) {
#if DECGPE_HAVE_CUDA
      int devices = 0;
      DECGPE_CUDA_CHECK(cudaGetDeviceCount(&devices));
      DECGPE_CUDA_CHECK(cudaSetDevice(node_local_rank(comm) % devices));
      halo_ = std::make_unique<NcclHaloExchange>(slab_.grid, comm, lower, upper);
#endif
    } else {
      halo_ = std::make_unique<MpiHaloExchange>(
          slab_.grid, comm, lower >= 0 ? lower : MPI_PROC_NULL, upper >= 0 ? upper : MPI_PROC_NULL);
    }
    local_ = make_backend(resolved, slab_, halo_.get(), tuning);
  }

  ~SlabBackend() override {
    MPI_Type_free(&complex_);
  }

  std::string name() const override {
    return local_->name();
  }
  const Problem& problem() const override {
    return global_;
  }
  std::string device() const override {
    return std::to_string(ranks_) + " MPI ranks, each " + local_->device();
  }

  VectorId create_vector() override {
    return local_->create_vector();
  }
  void destroy_vector(VectorId v) override {
    local_->destroy_vector(v);
  }
  void upload(VectorId v, std::span<const Complex> values) override {
    local_->upload(v, stored(values));
  }
  void download(VectorId v, std::span<Complex> values) override {
    std::vector<Complex> mine(static_cast<std::size_t>(slab_.grid.cells()));
    local_->download(v, mine);
    gather(mine, values);
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
  std::vector<std::pair<std::string, std::string>> tuning() const override {
    return local_->tuning();
  }

  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    const Diagnostics d = local_->diagnostics(current, previous, reference);
    double sums[5] = {d.norm, d.energy, d.invariant, d.overlap.re, d.overlap.im};
    double maxima[2] = {d.max_abs, d.max_diagonal};
    int finite = d.finite ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, comm_);
    MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, comm_);
    MPI_Allreduce(MPI_IN_PLACE, &finite, 1, MPI_INT, MPI_MIN, comm_);
    Diagnostics total;
    total.norm = sums[0];
    total.energy = sums[1];
    total.invariant = sums[2];
    total.overlap = {sums[3], sums[4]};
    total.max_abs = maxima[0];
    total.max_diagonal = maxima[1];
    total.finite = finite == 1;
    return total;
  }

  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    const StepMaxima mine = local_->step_maxima(x, y, density_floor);
    double maxima[2] = {mine.phase_rate, mine.difference};
    MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, comm_);
    return {maxima[0], maxima[1]};
  }

private:
  /// This rank's stored slices of a whole-domain array.
  std::span<const Complex> stored(std::span<const Complex> whole) const {
    if (whole.size() != static_cast<std::size_t>(global_.grid.cells())) {
      throw std::invalid_argument("a state of " + std::to_string(whole.size()) +
                                  " values for a grid of " + std::to_string(global_.grid.cells()) +
                                  " cells");
    }
    const auto n = static_cast<std::size_t>(global_.grid.slice_cells());
    return whole.subspan(static_cast<std::size_t>(first_) * n,
                         static_cast<std::size_t>(last_ - first_) * n);
  }

  /// The owned slices of every rank into `whole` on rank 0.
  void gather(const std::vector<Complex>& mine, std::span<Complex> whole) {
    const std::int64_t n = global_.grid.slice_cells();
    std::vector<int> counts, offsets;
    for (const SlabRange& r : owned_) {
      const std::int64_t count = (r.end - r.begin) * n, offset = r.begin * n;
      if (offset + count > std::numeric_limits<int>::max()) {
        throw std::runtime_error("domain too large to gather on one rank");
      }
      counts.push_back(static_cast<int>(count));
      offsets.push_back(static_cast<int>(offset));
    }
    const Complex* owned = mine.data() + slab_.grid.owned_begin * n;
    MPI_Gatherv(owned, counts[static_cast<std::size_t>(rank_)], complex_, whole.data(),
                counts.data(), offsets.data(), complex_, 0, comm_);
  }

  const Problem& global_;
  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  std::vector<SlabRange> owned_;
  int first_ = 0, last_ = 0; ///< stored global slices [first_, last_)
  Problem slab_;
  MPI_Datatype complex_ = MPI_DATATYPE_NULL;
  std::unique_ptr<HaloExchange> halo_;
  std::unique_ptr<Backend> local_;
};

} // namespace

std::unique_ptr<Backend> make_slab_backend(std::string_view local, const Problem& global,
                                           MPI_Comm comm, const BackendTuning& tuning) {
  return std::make_unique<SlabBackend>(local, global, comm, tuning);
}

} // namespace decgpe::scaleout
