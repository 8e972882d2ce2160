#include "bloch.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace decgpe::lattices {

namespace {

using Complex = std::complex<double>;

/// Dense Hermitian matrix, row-major.
struct Hermitian {
  int n;
  std::vector<Complex> a;
  Complex& operator()(int i, int j) { return a[static_cast<std::size_t>(i) * n + j]; }
  Complex operator()(int i, int j) const { return a[static_cast<std::size_t>(i) * n + j]; }
};

/// In-place Cholesky factor L (lower) of a Hermitian positive-definite matrix.
void cholesky(Hermitian& m) {
  for (int j = 0; j < m.n; ++j) {
    double diag = m(j, j).real();
    for (int k = 0; k < j; ++k) {
      diag -= std::norm(m(j, k));
    }
    if (diag <= 0.0) {
      throw std::runtime_error("Bloch matrix is not positive definite");
    }
    const double ljj = std::sqrt(diag);
    m(j, j) = ljj;
    for (int i = j + 1; i < m.n; ++i) {
      Complex s = m(i, j);
      for (int k = 0; k < j; ++k) {
        s -= m(i, k) * std::conj(m(j, k));
      }
      m(i, j) = s / ljj;
    }
  }
}

/// Solves L L^H x = b in place.
void cholesky_solve(const Hermitian& l, std::vector<Complex>& x) {
  for (int i = 0; i < l.n; ++i) {
    for (int k = 0; k < i; ++k) {
      x[i] -= l(i, k) * x[k];
    }
    x[i] /= l(i, i);
  }
  for (int i = l.n - 1; i >= 0; --i) {
    for (int k = i + 1; k < l.n; ++k) {
      x[i] -= std::conj(l(k, i)) * x[k];
    }
    x[i] /= l(i, i);
  }
}

/// A = D^{-1/2} K D^{-1/2} with K the symmetric stiffness Σ_F |F|/|E*| (u_i − u_j) and D =
/// diag(|B|): similar to the Laplacian D^{-1} K, Hermitian, and positive definite for k ≠ 0.
Hermitian bloch_matrix(const CellComplex& complex, const Vec3& k) {
  const int n = complex.cells_per_structure();
  Hermitian a{n, std::vector<Complex>(static_cast<std::size_t>(n) * n)};
  for (int i = 0; i < n; ++i) {
    const Cell& cell = complex.cells[i];
    for (const Face& f : cell.faces) {
      const Cell& other = complex.cells[f.neighbour];
      const Vec3 shift{f.offset[0] * complex.box.x, f.offset[1] * complex.box.y,
                       f.offset[2] * complex.box.z};
      const double phase = dot(k, other.circumcentre + shift - cell.circumcentre);
      const double stiffness = f.area / f.dual_length;
      const double s = 1.0 / std::sqrt(cell.volume * other.volume);
      a(i, i) += stiffness / cell.volume;
      a(i, f.neighbour) -= stiffness * s * Complex(std::cos(phase), std::sin(phase));
    }
  }
  return a;
}

/// Scales x to unit length.
void normalise(std::vector<Complex>& x) {
  double len = 0.0;
  for (const Complex& v : x) {
    len += std::norm(v);
  }
  len = std::sqrt(len);
  for (Complex& v : x) {
    v /= len;
  }
}

/// The Rayleigh quotient x^H A x.
Complex rayleigh_quotient(const Hermitian& a, const std::vector<Complex>& x) {
  Complex q = 0.0;
  for (int i = 0; i < a.n; ++i) {
    Complex ax = 0.0;
    for (int j = 0; j < a.n; ++j) {
      ax += a(i, j) * x[j];
    }
    q += std::conj(x[i]) * ax;
  }
  return q;
}

} // namespace

double lowest_bloch_eigenvalue(const CellComplex& complex, const Vec3& k) {
  const Hermitian a = bloch_matrix(complex, k);
  Hermitian factor = a;
  cholesky(factor);
  // Inverse iteration: the gap to the next band is O(1/h²) against λ₀ = O(|k|²), so it converges in
  // a few sweeps.
  std::vector<Complex> x(a.n, Complex(1.0, 0.0));
  double lambda = 0.0;
  for (int iter = 0; iter < 50; ++iter) {
    cholesky_solve(factor, x);
    normalise(x);
    const double previous = lambda;
    lambda = rayleigh_quotient(a, x).real();
    if (iter > 2 && std::abs(lambda - previous) <= 1e-15 * std::abs(lambda)) {
      break;
    }
  }
  return lambda;
}

double effective_spacing(const CellComplex& complex) {
  return std::cbrt(complex.structure_volume() / complex.cells_per_structure());
}

std::vector<Vec3> sphere_directions(int count) {
  std::vector<Vec3> dirs;
  dirs.reserve(static_cast<std::size_t>(count));
  const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < count; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / count;
    const double r = std::sqrt(1.0 - z * z);
    dirs.push_back({r * std::cos(golden * i), r * std::sin(golden * i), z});
  }
  return dirs;
}

} // namespace decgpe::lattices
