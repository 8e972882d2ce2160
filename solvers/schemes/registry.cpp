#include "solvers/schemes/registry.hpp"

#include "solvers/schemes/exponential/exponential.hpp"
#include "solvers/schemes/leapfrog/leapfrog.hpp"
#include "solvers/schemes/rk4/rk4.hpp"
#include "solvers/schemes/trotter_suzuki/trotter_suzuki.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace decgpe {

namespace {

const SchemeEntry kSchemes[] = {
    {"leapfrog", "the paper's explicit leapfrog (Algorithm 1), second order, time-reversible", 2,
     1.0, "Re <psi^{n-1}, psi^n>: conserved to round-off", false, 2, true, 5, 2, StepControl::fixed,
     0, "the leapfrog is unstable with a dissipative term", "step", make_leapfrog},
    {"rk4", "classical fourth-order Runge-Kutta (NLSEmagic), four fused stages per step", 4,
     2.0 * std::sqrt(2.0), "the norm <psi, psi>: decays at O(dt^5) per unit time", true, 1, false,
     5, 0, StepControl::doubling, 2, "", "rk4", make_rk4},
    {"trotter_suzuki",
     "unitary Trotter-Suzuki splitting over face-coloured matchings (Wittek & Cucchietti), "
     "second order, no stability limit",
     2, kUnconditionallyStable, "the norm <psi, psi>: conserved to round-off", false, 1, false, 3,
     0, StepControl::phase, 0, "its unitary blocks do not carry it", "trotter_suzuki",
     make_trotter_suzuki},
    {"trotter_suzuki4", "Suzuki's fourth-order composition of five trotter_suzuki steps", 4,
     kUnconditionallyStable, "the norm <psi, psi>: conserved to round-off", false, 1, false, 3, 0,
     StepControl::phase, 0, "its unitary blocks do not carry it", "trotter_suzuki4",
     make_trotter_suzuki4},
    {"exponential",
     "Strang splitting, exp(-i dt L/2) by a Chebyshev polynomial of the operator (Einkemmer & "
     "Ostermann), second order, no stability limit",
     2, kUnconditionallyStable, "the norm <psi, psi>: conserved up to the polynomial's 1e-12",
     false, 1, false, 4, 0, StepControl::phase, 0,
     "its Chebyshev polynomial of a real-time exponential does not carry it", "exponential",
     make_exponential},
};

} // namespace

std::span<const SchemeEntry> scheme_registry() {
  return kSchemes;
}

const SchemeEntry& find_scheme(std::string_view name) {
  const auto* it = std::find_if(std::begin(kSchemes), std::end(kSchemes),
                                [&](const SchemeEntry& e) { return e.name == name; });
  if (it == std::end(kSchemes)) {
    std::string known;
    for (const SchemeEntry& e : kSchemes) {
      known += (known.empty() ? "" : ", ") + std::string(e.name);
    }
    throw std::invalid_argument("unknown scheme '" + std::string(name.substr(0, 64)) +
                                "' (known: " + known + ")");
  }
  return *it;
}

std::unique_ptr<Scheme> make_scheme(std::string_view name, Backend& backend, double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    throw std::invalid_argument("the time step must be finite and > 0, got " + std::to_string(dt));
  }
  return find_scheme(name).make(backend, dt);
}

} // namespace decgpe
