#pragma once
// The arithmetic of one dual 0-cell, written once for every backend and every scheme. Backends call
// these in the same order with the same operands, and none of them contracts a·b + c into a fused
// multiply-add (the CUDA sources build with --fmad=false), so their states agree bit for bit.
// The updates of ψ are templated on the real type they compute in (solvers/precision.hpp); the
// geometry (positions, V, phases) and the diagnostics' sums are FP64 in every precision.

#include "solvers/complex.hpp"

#include <cmath>

namespace decgpe {

/// x² + y², the trap's part in the plane: a kernel that meets a column of cells again and again
/// keeps it (the sum is formed first in harmonic_potential too).
DECGPE_HD double in_plane_square(double x, double y) {
  return x * x + y * y;
}

/// V = ½(x² + y² + λ²z²) from x² + y².
DECGPE_HD double harmonic_potential_from(double in_plane, double z, double lambda) {
  return 0.5 * (in_plane + lambda * lambda * (z * z));
}

/// V(r) = ½(x² + y² + λ²z²), the trap of the paper's cases.
DECGPE_HD double harmonic_potential(double x, double y, double z, double lambda) {
  return harmonic_potential_from(in_plane_square(x, y), z, lambda);
}

/// One face's contribution to Σ_F w_F (ψ_i − ψ_j); faces are always summed in stencil-table order,
/// with ψ_j = 0 beyond the domain (Dirichlet).
template <class Real>
DECGPE_HD BasicComplex<Real> add_face(BasicComplex<Real> laplacian, Real weight,
                                      BasicComplex<Real> psi_i, BasicComplex<Real> psi_j) {
  return laplacian + weight * (psi_i - psi_j);
}

/// (M(ψ)ψ)_i = ½ Σ_F w_F (ψ_i − ψ_j) + (V_i + g|ψ_i|²) ψ_i: the discrete Hamiltonian (paper eq. 6).
template <class Real>
DECGPE_HD BasicComplex<Real> apply_m(BasicComplex<Real> psi, BasicComplex<Real> laplacian, Real v,
                                     Real g) {
  const Real u = v + g * norm2(psi);
  return Real(0.5) * laplacian + u * psi;
}

/// base − iτ m: one explicit move along the flow ψ' = −i M(ψ)ψ with m = M(ψ)ψ. The leapfrog step is
/// step_along(ψ^{n−1}, 2Δt, Mψ^n); each RK4 stage is two of these.
template <class Real>
DECGPE_HD BasicComplex<Real> step_along(BasicComplex<Real> base, Real tau, BasicComplex<Real> m) {
  return {base.re + tau * m.im, base.im - tau * m.re};
}

/// a x + b y with complex a, b.
template <class Real>
DECGPE_HD BasicComplex<Real> axpby(BasicComplex<Real> a, BasicComplex<Real> x, BasicComplex<Real> b,
                                   BasicComplex<Real> y) {
  return mul(a, x) + mul(b, y);
}

/// cos x and sin x from IEEE additions and multiplications only (fdlibm's method: x reduced by
/// k·π/2 in three parts, Cody–Waite, then its minimax polynomials on [−π/4, π/4]), so that host
/// and device round identically: glibc's and CUDA's own sin and cos differ in the last bit. Within
/// an ulp or two for |x| < 1e6; the phases of a time step are far smaller.
DECGPE_HD Complex cos_sin(double x) {
  constexpr double two_over_pi = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00; // first 33 bits of π/2: k·pio2_1 is exact
  constexpr double pio2_2 = 6.07710050630396597660e-11; // the next 33
  constexpr double pio2_3 = 2.02226624871116645580e-21; // the rest
  const double k = floor(x * two_over_pi + 0.5);
  const double r = ((x - k * pio2_1) - k * pio2_2) - k * pio2_3;
  const double z = r * r;
  const double sin_poly =
      8.33333333332248946124e-03 +
      z * (-1.98412698298579493134e-04 +
           z * (2.75573137070700676789e-06 +
                z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
  const double s = r + (z * r) * (-1.66666666666666324348e-01 + z * sin_poly);
  const double cos_poly =
      z * (4.16666666666666019037e-02 +
           z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 +
                     z * (-2.75573143513906633035e-07 +
                          z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  const double half_z = 0.5 * z, w = 1.0 - half_z;
  const double c = w + (((1.0 - w) - half_z) + z * cos_poly);
  const double quadrant = k - 4.0 * floor(0.25 * k); // 0, 1, 2, 3
  if (quadrant == 0.0) {
    return {c, s};
  }
  if (quadrant == 1.0) {
    return {-s, c};
  }
  if (quadrant == 2.0) {
    return {-c, -s};
  }
  return {s, -c};
}

/// e^{ix} in the precision of x: cos_sin() of its FP64 value, rounded (FP32 has no reduction of its
/// own here: one routine, the same bits on every backend).
template <class Real> DECGPE_HD BasicComplex<Real> phase_factor(Real x) {
  return convert<Real>(cos_sin(static_cast<double>(x)));
}

/// exp(−iτ(V + g|ψ|²)) ψ: the exact flow of the potential and the nonlinearity over τ (|ψ| is
/// constant along it), bitwise the same on every backend (cos_sin).
template <class Real>
DECGPE_HD BasicComplex<Real> rotate_phase(BasicComplex<Real> psi, Real v, Real g, Real tau) {
  return mul(phase_factor(-tau * (v + g * norm2(psi))), psi);
}

/// θ_ij = Ω (x_i y_j − x_j y_i), coordinates relative to the rotation axis: ∫A·dl along the dual
/// edge from c_i to c_j for A = Ω ẑ×r, exact as A(midpoint)·(c_j − c_i) since A is linear. It is
/// antisymmetric in bits (θ_ji = −θ_ij), so the magnetic Laplacian is Hermitian.
DECGPE_HD double rotating_phase(double omega, double x_i, double y_i, double x_j, double y_j) {
  return omega * (x_i * y_j - x_j * y_i);
}

/// e^{−iθ_ij} ψ_j: the neighbour's value in cell i's gauge (½(p − A)² with ψ = e^{iχ}φ, A = ∇χ, is
/// e^{iχ}½p²φ), as a Trotter–Suzuki face block takes it; the magnetic Laplacian is magnetic_sum().
template <class Real>
DECGPE_HD BasicComplex<Real> transported(BasicComplex<Real> psi_j, double theta) {
  return mul(convert<Real>(cos_sin(-theta)), psi_j);
}

/// w e^{−iθ}: a face's hopping weight in the rotating frame, e^{−iθ} the phase transported()
/// applies; formed in FP64 from the geometry, rounded to Real.
template <class Real = double>
DECGPE_HD BasicComplex<Real> weighted_phase(double weight, double theta) {
  const Complex e = cos_sin(-theta);
  return convert<Real>(Complex{weight * e.re, weight * e.im});
}

/// One face's w e^{−iθ_ij} ψ_j added to Σ_F w_F e^{−iθ_F} ψ_j; faces in stencil-table order, ψ_j =
/// 0 beyond the domain (Dirichlet).
template <class Real>
DECGPE_HD BasicComplex<Real> add_hop(BasicComplex<Real> hops, BasicComplex<Real> weighted,
                                     BasicComplex<Real> psi_j) {
  return hops + mul(weighted, psi_j);
}

/// The magnetic Laplacian Σ_F w_F (ψ_i − e^{−iθ_F} ψ_j) as W ψ_i − Σ_F w_F e^{−iθ_F} ψ_j with
/// W = Σ_F w_F: per face a complex multiply and an add, where add_face() of a transported ψ_j costs
/// half as much again (its rounding differs by an ulp's worth of the terms W ψ_i cancels).
template <class Real>
DECGPE_HD BasicComplex<Real> magnetic_sum(Real weight_sum, BasicComplex<Real> psi_i,
                                          BasicComplex<Real> hops) {
  return weight_sum * psi_i - hops;
}

/// −½Ω²(x² + y²), coordinates relative to the rotation axis: what ½(p − A)² adds beyond
/// ½p² − ΩL_z, taken back so that H = ½p² + V − ΩL_z.
DECGPE_HD double centrifugal_potential(double omega, double x, double y) {
  return -0.5 * (omega * omega) * (x * x + y * y);
}

/// ψ_i + k (ψ_i − ψ_j): cell i's side of one face's exact kinetic exponential, k from
/// face_rotations() (solvers/face_colouring.hpp); ψ_j = 0 with the boundary k beyond the domain.
template <class Real>
DECGPE_HD BasicComplex<Real> rotate_face(BasicComplex<Real> psi_i, BasicComplex<Real> psi_j,
                                         BasicComplex<Real> k) {
  return psi_i + mul(k, psi_i - psi_j);
}

/// α Σ_F w_F (ψ_i − ψ_j) + β ψ_i + γ p_i: one step of a three-term polynomial recurrence in the
/// kinetic operator ½L (the ½ folded into α), e.g. Chebyshev's T_{k+1} = 2Y T_k − T_{k−1}.
template <class Real>
DECGPE_HD BasicComplex<Real> recurrence_term(BasicComplex<Real> psi, BasicComplex<Real> laplacian,
                                             BasicComplex<Real> previous, Real alpha, Real beta,
                                             Real gamma) {
  return (alpha * laplacian + beta * psi) + gamma * previous;
}

/// The maxima an adaptive step is chosen from (solvers/schemes/step_control.hpp), over some cells;
/// partial maxima combine with max. A non-finite value counts as +∞, so that a blown-up state
/// forces the step down instead of hiding in fmax, which drops NaN.
struct StepSums {
  double phase_rate; ///< max |V_i + g|x_i|²| over cells with |x_i|² ≥ the density floor
  double difference; ///< max |x_i − y_i|
};

DECGPE_HD double max_or_infinity(double a, double value) {
  return value == value ? fmax(a, value) : static_cast<double>(INFINITY);
}

/// Cell i's terms: x_i, y_i (zero when there is no y), V_i, and the density floor |x|² ≥ floor.
DECGPE_HD void accumulate_step(StepSums& s, Complex x, Complex y, double v, double g,
                               double density_floor) {
  const double rho = norm2(x);
  if (!(rho < density_floor)) { // NaN included
    s.phase_rate = max_or_infinity(s.phase_rate, fabs(v + g * rho));
  }
  s.difference = max_or_infinity(s.difference, sqrt(norm2(x - y)));
}

DECGPE_HD StepSums combine(const StepSums& a, const StepSums& b) {
  return {max_or_infinity(a.phase_rate, b.phase_rate), max_or_infinity(a.difference, b.difference)};
}

/// A polynomial's sum after one more term `next` with coefficient c: acc + c·next, or, for the
/// first term, c_in·in + c·next (the sum starts here; acc is not read).
template <class Real>
DECGPE_HD BasicComplex<Real> accumulate_term(bool first, BasicComplex<Real> acc,
                                             BasicComplex<Real> c_in, BasicComplex<Real> in,
                                             BasicComplex<Real> c, BasicComplex<Real> next) {
  return (first ? mul(c_in, in) : acc) + mul(c, next);
}

DECGPE_HD bool finite(double x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

/// Partial sums of the diagnostics over some cells. Partial sums of slabs, blocks or threads
/// combine by adding (max for the maxima). Trivial, so that it can live in CUDA shared memory:
/// value-initialise it (CellSums s{}) for zeros.
struct CellSums {
  double norm;         ///< Σ|B_i| |ψ_i|²
  double energy;       ///< Σ|B_i| [conj(ψ_i) (½Lψ)_i + V_i|ψ_i|² + ½g|ψ_i|⁴]
  double kinetic;      ///< Σ|B_i| Re conj(ψ_i) (½Lψ)_i, energy's first term
  double trap;         ///< Σ|B_i| V_i|ψ_i|², its second
  double interaction;  ///< Σ|B_i| ½g|ψ_i|⁴, its third
  double invariant;    ///< Re Σ|B_i| conj(ψ^{n−1}_i) ψ_i (leapfrog's conserved quantity)
  double overlap_re;   ///< Re Σ|B_i| conj(ψ₀_i) ψ_i
  double overlap_im;   ///< Im of the same
  double max_abs;      ///< max |ψ_i|
  double max_diagonal; ///< max (½ Σ_F w_F + V_i + g|ψ_i|²), eq. 11's diagonal
  double nonfinite;    ///< cells with a non-finite ψ_i
};

/// Cell i's terms; `previous` is ψ^{n−1}_i, or zero for schemes with one level.
DECGPE_HD void accumulate(CellSums& s, double volume, double weight_sum, Complex previous,
                          Complex psi, Complex reference, Complex laplacian, double v, double g) {
  const double rho = norm2(psi);
  const Complex overlap = conj_mul(reference, psi);
  s.norm += volume * rho;
  const double kinetic = 0.5 * conj_mul(psi, laplacian).re, trap = v * rho,
               interaction = 0.5 * g * rho * rho;
  s.energy += volume * (kinetic + trap + interaction);
  s.kinetic += volume * kinetic;
  s.trap += volume * trap;
  s.interaction += volume * interaction;
  s.invariant += volume * conj_mul(previous, psi).re;
  s.overlap_re += volume * overlap.re;
  s.overlap_im += volume * overlap.im;
  s.max_abs = fmax(s.max_abs, sqrt(rho));
  s.max_diagonal = fmax(s.max_diagonal, 0.5 * weight_sum + v + g * rho);
  s.nonfinite += (finite(psi.re) && finite(psi.im)) ? 0.0 : 1.0;
}

DECGPE_HD CellSums combine(const CellSums& a, const CellSums& b) {
  return {a.norm + b.norm,
          a.energy + b.energy,
          a.kinetic + b.kinetic,
          a.trap + b.trap,
          a.interaction + b.interaction,
          a.invariant + b.invariant,
          a.overlap_re + b.overlap_re,
          a.overlap_im + b.overlap_im,
          fmax(a.max_abs, b.max_abs),
          fmax(a.max_diagonal, b.max_diagonal),
          a.nonfinite + b.nonfinite};
}

/// The diagnostics' sums in a rotating frame: `frame` with M's own terms (½L_A and V − ½Ω²ρ²: E,
/// the norm, the invariant, M's diagonal), `lab` with the lab frame's ½L and V (the kinetic and
/// trap terms). Trivial like CellSums: value-initialise it for zeros.
struct RotatingSums {
  CellSums frame, lab;
};

/// Cell i's terms: lap_a its magnetic face sum, lap the plain one, v_frame = V_i − ½Ω²ρ_i².
DECGPE_HD void accumulate_rotating(RotatingSums& s, double volume, double weight_sum,
                                   Complex previous, Complex psi, Complex reference, Complex lap_a,
                                   double v_frame, Complex lap, double v, double g) {
  accumulate(s.frame, volume, weight_sum, previous, psi, reference, lap_a, v_frame, g);
  accumulate(s.lab, volume, weight_sum, previous, psi, reference, lap, v, g);
}

DECGPE_HD RotatingSums combine(const RotatingSums& a, const RotatingSums& b) {
  return {combine(a.frame, b.frame), combine(a.lab, b.lab)};
}

} // namespace decgpe
