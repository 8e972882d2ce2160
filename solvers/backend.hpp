#pragma once
// The kernel set every backend implements (Ginkgo's core/kernels split, BabelStream's small
// interface): the schemes in solvers/schemes/ are written once against it, and each backend
// implements it where its data lives. The state never leaves the backend between steps; only
// diagnostics (a few numbers) cross to the host per cadence, ψ only on upload and download.
//
// Vectors are fields of grid.cells() complex values, named by a VectorId. Stencil kernels read
// their input with its neighbours; on a slab, one first exchanges its inputs' halo slices when they
// are no longer current (every k stencil kernels with k halo slices: solvers/halo_schedule.hpp) and
// computes its owned slices and the halo slices its inputs allow. Pointwise kernels run over every
// stored cell, so current inputs give a current output. Diagnostics sum the owned cells only.

#include "solvers/backend_tuning.hpp"
#include "solvers/cell_arithmetic.hpp"
#include "solvers/complex.hpp"
#include "solvers/problem.hpp"
#include "solvers/vortex_flux.hpp"

#include <array>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace decgpe {

/// Where a backend's vectors live, which decides how slab halos move (MPI for host, NCCL for
/// device) and whose memory a run's need is checked against (solvers/memory_budget.hpp).
enum class MemorySpace { host, cuda_device };

/// The diagnostics of one state, summed over all cells (and ranks).
struct Diagnostics {
  double norm = 0.0;   ///< Σ|B_i| |ψ_i|²
  double energy = 0.0; ///< Σ|B_i| [conj(ψ_i) (½Lψ)_i + V_i|ψ_i|² + ½g|ψ_i|⁴]
  /// The energy by term, summed beside it (their sum equals `energy` to round-off, not in bits):
  double kinetic = 0.0;      ///< Σ|B_i| Re conj(ψ_i) (½Lψ)_i = ⟨ψ, ½Lψ⟩
  double trap = 0.0;         ///< Σ|B_i| V_i|ψ_i|² = ⟨ψ, Vψ⟩
  double interaction = 0.0;  ///< Σ|B_i| ½g|ψ_i|⁴
  double invariant = 0.0;    ///< the scheme's conserved quantity (Scheme::invariant_name())
  Complex overlap{0.0, 0.0}; ///< Σ|B_i| conj(ψ₀_i) ψ_i
  double max_abs = 0.0;      ///< max_i |ψ_i|
  double max_diagonal = 0.0; ///< max_i M_ii = max_i (½ Σ_F w_F + V_i + g|ψ_i|²)
  bool finite = true;        ///< all of ψ finite
  /// In a rotating frame (Rotation): E − kinetic − trap − interaction = ⟨ψ, ½L_Aψ⟩ − ⟨ψ, ½Lψ⟩ −
  /// ½Ω²⟨ρ²⟩, the grid's −Ω⟨L_z⟩; kinetic and trap stay the lab frame's ½⟨p²⟩ and ⟨V⟩. 0 without.
  double rotation = 0.0;

  static Diagnostics from(const CellSums& s) {
    return {s.norm,
            s.energy,
            s.kinetic,
            s.trap,
            s.interaction,
            s.invariant,
            {s.overlap_re, s.overlap_im},
            s.max_abs,
            s.max_diagonal,
            s.nonfinite == 0.0};
  }
  /// In a rotating frame: E, the norm, the invariant and M's diagonal from the frame's sums, the
  /// kinetic and trap terms from the lab's, and the rotation term the difference.
  static Diagnostics from(const RotatingSums& s) {
    Diagnostics d = from(s.frame);
    d.kinetic = s.lab.kinetic;
    d.trap = s.lab.trap;
    d.rotation = (s.frame.kinetic + s.frame.trap) - (s.lab.kinetic + s.lab.trap);
    return d;
  }
};

/// The two numbers an adaptive step is decided from (one device max-reduction, the max-reduction
/// note's pattern): only they cross to the host, never ψ.
struct StepMaxima {
  double phase_rate = 0.0; ///< max |V_i + g|x_i|²| over owned cells with |x_i|² ≥ the floor
  double difference = 0.0; ///< max |x_i − y_i| over owned cells (|x_i| when y is kNoVector)

  static StepMaxima from(const StepSums& s) { return {s.phase_rate, s.difference}; }
};

using VectorId = int;
inline constexpr VectorId kNoVector = -1;

/// One RK4 stage for ψ' = −i M(ψ)ψ in the low-storage form, fused into one pass: with
/// m = M(input)·input,
///   stage 0 (input = base):  acc ← base − i(b₀Δt) m,  next ← base − i(a₁Δt) m
///   stages 1, 2:             acc ← acc  − i(b_sΔt) m,  next ← base − i(a_{s+1}Δt) m
///   stage 3:                 next ← acc − i(b₃Δt) m   (the new ψ; acc and base are not written)
/// The coefficients (Δt/6, Δt/3, Δt/3, Δt/6 and Δt/2, Δt/2, Δt) are computed once on the host.
struct Rk4Stage {
  int stage = 0; ///< 0..3
  VectorId input = kNoVector, base = kNoVector, acc = kNoVector, next = kNoVector;
  double acc_tau = 0.0;  ///< b_s Δt
  double next_tau = 0.0; ///< a_{s+1} Δt (stages 0-2)
};

/// One colour of a Trotter–Suzuki sweep: out ← exp(−iτ K_c) in, K_c the kinetic blocks of the faces
/// of colour c (a matching; solvers/face_colouring.hpp). Cells without a face of that colour copy.
/// With phase_tau ≠ 0 the split's potential and nonlinear phase follows in the same pass,
/// out ← exp(−i phase_tau (V + g|out|²)) out: bitwise rotate_phase() after the sweep, one pass
/// less.
struct FaceSweep {
  VectorId in = kNoVector, out = kNoVector; ///< distinct
  int colour = 0;
  double tau = 0.0;
  double phase_tau = 0.0;
};

/// One term of a polynomial in the kinetic operator ½L, fused into one pass:
///   out ← α L(in) + β in + γ prev   (L(in)_i = Σ_F w_F (in_i − in_j); prev may be kNoVector: 0)
///   acc ← acc + c · out,  or when `first`: acc ← c_in · in + c · out (acc is not read)
/// `out` may be `prev` (each cell reads its prev before writing); `in` is read at neighbours and
/// differs from the others. On a slab the halo exchanged is out's, or acc's when `last`.
struct PolynomialTerm {
  VectorId in = kNoVector, prev = kNoVector, out = kNoVector, acc = kNoVector;
  double alpha = 0.0, beta = 0.0, gamma = 0.0;
  Complex c{0.0, 0.0};
  bool last = false;
  bool first = false;
  Complex c_in{0.0, 0.0}; ///< used when first
};

/// Times the work queued on a backend (Backend::work_timer()).
class WorkTimer {
public:
  virtual ~WorkTimer() = default;
  virtual void start() = 0;
  /// Waits for the work queued since start() and returns its seconds.
  virtual double stop() = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string name() const = 0;
  /// The equation it solves (the whole domain's, also on a slab backend).
  virtual const Problem& problem() const = 0;
  /// Where it runs, for provenance ("2 OpenMP threads", a GPU's name).
  virtual std::string device() const = 0;

  /// A new vector of grid.cells() values, unset; throws std::runtime_error (one line) when it does
  /// not fit in the backend's memory.
  virtual VectorId create_vector() = 0;
  virtual void destroy_vector(VectorId v) = 0;
  /// Sets v from the problem's cells (a slab's stored slices; its halo slices are not trusted).
  virtual void upload(VectorId v, std::span<const Complex> values) = 0;
  /// v's values on the problem's cells (a slab's stored slices: the owned ones; the halo slices
  /// hold whatever the last kernels left there, current or not).
  virtual void download(VectorId v, std::span<Complex> values) = 0;

  // Stencil kernels.
  /// out ← M(in)·in.
  virtual void apply_m(VectorId in, VectorId out) = 0;
  /// `steps` fused leapfrog updates older ← older − 2iΔt M(newer)·newer, the two vectors swapping
  /// roles after each (paper Algorithm 1); the repeat lets a backend queue them without the host.
  virtual void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) = 0;
  virtual void rk4_stage(const Rk4Stage& stage) = 0;
  /// The four stages of one RK4 step, each stage's input the one before's next and base the first
  /// one's input (rk4_step()'s chain): bitwise the four rk4_stage() calls in the step's output,
  /// the only vector defined after it. A backend may fuse them (the CUDA backend's
  /// cuda.rk4_stages_per_sweep), leaving acc and the stage vectors as its passes leave them.
  virtual void rk4_stages(const std::array<Rk4Stage, 4>& stages) {
    for (const Rk4Stage& s : stages) {
      rk4_stage(s);
    }
  }
  virtual void rotate_faces(const FaceSweep& sweep) = 0;
  virtual void polynomial_term(const PolynomialTerm& term) = 0;

  // Pointwise kernels.
  /// out ← a x + b y (out may be x or y).
  virtual void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) = 0;
  /// v ← exp(−iτ(V + g|v|²)) v.
  virtual void rotate_phase(VectorId v, double tau) = 0;

  /// Sums over the owned cells of ψ = `current`; `previous` (or kNoVector) gives the invariant term
  /// Re Σ|B| conj(previous) ψ, `reference` the overlap.
  virtual Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) = 0;

  /// Over the owned cells of x (and y, or kNoVector): the maxima of StepMaxima. A reduction
  /// kernel; the two numbers are on the host when it returns.
  virtual StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) = 0;

  /// The edges ψ = `psi` pierces (solvers/vortex_flux.hpp): those of the owned instances whose ring
  /// lies in the domain, whose ring cells all have V < potential_cut (kEveryRing: every ring) and
  /// whose flux is not zero, sorted by edge id; only they reach the host. A slab backend gathers
  /// every rank's, so each rank holds the whole domain's list.
  virtual std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) = 0;
  /// The same list as a future: a device backend queues what it can and returns at once, so that
  /// the next steps may run while the list reaches the host. get() it (from any thread) before
  /// the next call. A CPU backend's list is ready when it returns.
  virtual std::future<std::vector<PiercedEdge>> vortex_flux_later(VectorId psi,
                                                                  double potential_cut) {
    std::promise<std::vector<PiercedEdge>> list;
    list.set_value(vortex_flux(psi, potential_cut));
    return list.get_future();
  }

  /// The tunables it runs with, each as "value (where it came from)", for the results: they change
  /// its speed, never its results (solvers/backend_tuning.hpp).
  virtual std::vector<std::pair<std::string, std::string>> tuning() const { return {}; }

  /// Blocks until all queued work is done; the CPU backends are synchronous already.
  virtual void synchronize() {}

  /// A timer of the work queued on it in the device's own time (a device backend's events on its
  /// queue), or null where the host's clock is the time: the CPU backends.
  virtual std::unique_ptr<WorkTimer> work_timer() { return nullptr; }
  /// Evicts the caches its kernels read through, so that a timed sample starts cold (nothing on
  /// the host, whose caches no benchmark flushes).
  virtual void flush_caches() {}
  /// The leapfrog steps it fuses into one launch (a tunable's choice): a run of steps is best a
  /// multiple of it.
  virtual long steps_per_launch() const { return 1; }
};

} // namespace decgpe
