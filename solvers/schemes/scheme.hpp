#pragma once
// A time-stepping scheme for iψ' = M(ψ)ψ, written once against the backends' kernel set
// (solvers/backend.hpp). Each scheme owns its state levels, how they start, its stability limit
// and its conserved quantity; backends know none of this.

#include "solvers/backend.hpp"
#include "solvers/schemes/step_control.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe {

/// What a scheme starts from. `previous` is the leapfrog's ψ^{−1} when the case asks for the
/// paper's start (the continuum state at −Δt); empty, a scheme derives any further level from ψ⁰
/// with the discrete operator.
struct StartLevels {
  std::span<const Complex> current;   ///< ψ⁰
  std::span<const Complex> reference; ///< ψ₀ of the overlap diagnostic
  std::span<const Complex> previous;  ///< optional ψ^{−1}
};

/// What one step moves through memory, per cell, at the byte model's floor (each vector read or
/// written once per pass, neighbours from cache, V computed in the kernel): the benchmark's
/// bandwidth and the work–precision study's cost.
struct StepTraffic {
  double passes = 0.0; ///< kernel passes over the state
  double bytes = 0.0;  ///< bytes per cell
};

/// Where a scheme is in time: what a checkpoint keeps so that a resumed run takes the same steps.
struct StepClock {
  long steps = 0;
  double time = 0.0;    ///< steps × Δt for fixed steps, the sum of the steps for adaptive ones
  double last_dt = 0.0; ///< the last step taken (Δt before the first)
  double next_dt = 0.0; ///< the step doubling's next attempt (Δt otherwise)
};

class Scheme {
public:
  virtual ~Scheme() = default;
  Scheme(const Scheme&) = delete;
  Scheme& operator=(const Scheme&) = delete;

  virtual std::string name() const = 0;
  virtual void start(const StartLevels& levels) = 0;
  /// Instead of start(): the levels as a checkpoint saved them (level_names() order) and ψ₀.
  virtual void resume(std::span<const std::vector<Complex>> levels,
                      std::span<const Complex> reference) = 0;
  /// Advances `steps` steps; fewer when an adaptive run reaches its end time, and returns how many
  /// it took (none for steps ≤ 0). Fixed steps may return before the backend finishes (see
  /// synchronize).
  long advance(long steps);
  /// From now on choose each step with `control` (the scheme's SchemeEntry::adaptive); throws
  /// std::invalid_argument for a scheme that cannot.
  void make_adaptive(StepControl control, const AdaptiveSettings& settings);
  bool adaptive() const { return control_ != StepControl::fixed; }
  /// From now on solve (i − γ)∂ψ/∂t = (M(ψ) − μ)ψ, μ = ⟨ψ, M(ψ)ψ⟩, and renormalise ψ to
  /// Σ|B||ψ|² = 1 after every step (γ > 0); throws std::invalid_argument for a scheme that cannot
  /// (all but rk4 at fixed steps).
  virtual void make_damped(double gamma);
  /// An adaptive run that has reached its end time.
  bool finished() const { return adaptive() && clock_.time >= adaptive_.end_time; }
  const StepClock& clock() const { return clock_; }
  double end_time() const { return adaptive_.end_time; }
  /// A checkpoint's clock, with resume().
  void set_clock(const StepClock& clock) { clock_ = clock; }
  /// What the last step decided (e.g. the polynomial's degree, the error estimate), recorded with
  /// each diagnostics sample as /diagnostics/<name>; the same names every step.
  virtual std::vector<std::pair<std::string, double>> step_report() const { return {}; }
  /// The diagnostics of the current level; `invariant` is the scheme's conserved quantity.
  virtual Diagnostics diagnostics() = 0;
  /// The names of the levels it holds, current first ("current", "previous").
  virtual std::vector<std::string> level_names() const = 0;
  /// Level `index` of level_names(), whole domain (gathered on the first rank of a slab backend).
  virtual void download(int index, std::span<Complex> values) = 0;
  /// The edges the current level pierces where V < potential_cut (Backend::vortex_flux_later):
  /// only they reach the host, while the next steps may already run.
  virtual std::future<std::vector<PiercedEdge>> vortex_flux(double potential_cut) = 0;

  /// Kernel passes and bytes per cell of a step at the backend's precision (its vectors' value
  /// size: 16 B in double, 8 B in single and mixed).
  StepTraffic traffic() const {
    StepTraffic t = fp64_traffic();
    t.bytes *= value_bytes(backend().problem().precision) / 16.0;
    return t;
  }
  /// What the scheme chose for this problem and step (e.g. a polynomial's degree), recorded in the
  /// results as attributes scheme_<name>.
  virtual std::vector<std::pair<std::string, double>> properties() const { return {}; }

  void synchronize() { backend_.synchronize(); }
  /// The fixed step, or an adaptive run's longest.
  double dt() const { return dt_; }
  Backend& backend() { return backend_; }
  const Backend& backend() const { return backend_; }

protected:
  /// traffic() in 16-byte values: the bytes its passes move in double precision.
  virtual StepTraffic fp64_traffic() const = 0;
  Scheme(Backend& backend, double dt)
      : backend_(backend), dt_(dt), clock_{0, 0.0, dt, dt}, adaptive_{} {}

  /// `steps` steps of dt_.
  virtual void advance_fixed(long steps) = 0;
  /// One step of at most `longest` chosen by `control` (make_adaptive accepted it); returns the
  /// step taken and sets next_dt when the control keeps a proposal.
  virtual double advance_adaptive(StepControl control, double longest, StepClock& clock);

  Backend& backend_;
  double dt_;
  StepClock clock_;
  StepControl control_ = StepControl::fixed;
  AdaptiveSettings adaptive_;
};

/// A vector of the backend for as long as it lives.
class OwnedVector {
public:
  explicit OwnedVector(Backend& b) : backend_(&b), id_(b.create_vector()) {}
  ~OwnedVector() {
    if (backend_ != nullptr) {
      backend_->destroy_vector(id_);
    }
  }
  OwnedVector(const OwnedVector&) = delete;
  OwnedVector& operator=(const OwnedVector&) = delete;
  VectorId id() const { return id_; }

private:
  Backend* backend_;
  VectorId id_;
};

} // namespace decgpe
