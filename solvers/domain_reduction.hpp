#pragma once
// How a computation over the owned cells of a domain split between processes combines its parts:
// the policy problem.cpp and stability.cpp take, so that they need not know how the domain is
// split. WholeDomain is the one process's; scaleout::Decomposition, MPI's slabs, implements it for
// any split with the same bits.

#include <cstdint>
#include <span>

namespace decgpe {

class DomainReduction {
public:
  virtual ~DomainReduction() = default;

  /// Σ over the whole domain of per-slice values: `owned` holds this process's owned slices'
  /// values, in slice order; they are added in global slice order, the same for every split.
  virtual double sum_slices(std::span<const double> owned) const = 0;
  /// The largest of every process's `mine`.
  virtual double max(double mine) const = 0;
  /// The neighbours' owned boundary slices into the halo slice next to each end of the owned ones
  /// of a host array of the stored slices, `slice_values` doubles each (a stencil reads no
  /// further).
  virtual void exchange_halos(std::span<double> stored, std::int64_t slice_values) const = 0;

protected:
  DomainReduction() = default;
  DomainReduction(const DomainReduction&) = default;
  DomainReduction& operator=(const DomainReduction&) = default;
};

/// The whole domain in this one process: no halos, nothing to exchange.
class WholeDomain final : public DomainReduction {
public:
  double sum_slices(std::span<const double> owned) const override {
    double total = 0.0;
    for (const double s : owned) {
      total += s;
    }
    return total;
  }
  double max(double mine) const override { return mine; }
  void exchange_halos(std::span<double>, std::int64_t) const override {}
};

} // namespace decgpe
