#include "solvers/scaleout/slab_backend.hpp"

#include "solvers/cpu/backends.hpp"
#include "solvers/scaleout/mpi_halo.hpp"
#include "solvers/scaleout/mpi_session.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/scaleout/nccl_halo.hpp"
#endif

#include <stdexcept>
#include <string>
#include <vector>

namespace decgpe::scaleout {

namespace {

class SlabBackend final : public Backend {
public:
  SlabBackend(std::string_view local, const Problem& global, MPI_Comm comm)
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
    slab_.dt = global.dt;
    MPI_Type_contiguous(2, MPI_DOUBLE, &complex_);
    MPI_Type_commit(&complex_);

    if (local == "openmp") {
      halo_ = std::make_unique<MpiHaloExchange>(
          slab_.grid, comm, lower >= 0 ? lower : MPI_PROC_NULL, upper >= 0 ? upper : MPI_PROC_NULL);
      local_ = cpu::make_openmp_backend(slab_, halo_.get());
    } else if (local == "cuda" || local.starts_with("cuda:")) {
#if DECGPE_HAVE_CUDA
      int devices = 0;
      DECGPE_CUDA_CHECK(cudaGetDeviceCount(&devices));
      DECGPE_CUDA_CHECK(cudaSetDevice(node_local_rank(comm) % devices));
      halo_ = std::make_unique<NcclHaloExchange>(slab_.grid, comm, lower, upper);
      local_ =
          local == "cuda"
              ? cuda::make_cuda_backend(slab_, {}, halo_.get())
              : cuda::make_cuda_backend(slab_, cuda::parse_variant(local.substr(5)), halo_.get());
#else
      throw std::runtime_error("backend 'cuda' is not in this build");
#endif
    } else {
      throw std::invalid_argument("backend '" + std::string(local) +
                                  "' cannot run over MPI ranks (use openmp or cuda)");
    }
  }

  ~SlabBackend() override {
    MPI_Type_free(&complex_);
  }

  std::string name() const override {
    return local_->name();
  }
  std::string device() const override {
    return std::to_string(ranks_) + " MPI ranks, each " + local_->device();
  }

  void load(std::span<const Complex> previous, std::span<const Complex> current,
            std::span<const Complex> reference) override {
    local_->load(stored(previous), stored(current), stored(reference));
  }

  void advance(long steps) override {
    local_->advance(steps);
  }
  void synchronize() override {
    local_->synchronize();
  }

  Diagnostics diagnostics() override {
    const Diagnostics d = local_->diagnostics();
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

  void store(std::span<Complex> current, std::span<Complex> previous) override {
    const auto n = static_cast<std::size_t>(slab_.grid.cells());
    std::vector<Complex> mine_current(n), mine_previous(n);
    local_->store(mine_current, mine_previous);
    gather(mine_current, current);
    gather(mine_previous, previous);
  }

private:
  /// This rank's stored slices of a whole-domain array.
  std::span<const Complex> stored(std::span<const Complex> whole) const {
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
                                           MPI_Comm comm) {
  return std::make_unique<SlabBackend>(local, global, comm);
}

} // namespace decgpe::scaleout
