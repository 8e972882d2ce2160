// What single and mixed precision cost in accuracy (solvers/precision.hpp), for the report
// "Precision": every lattice and scheme runs the trap's interacting, non-stationary vortex (λ = 1.4
// trap, λ = 1 vortex, g = 100) for N steps at half the leapfrog's limit in double, single and mixed
// precision, and each run's drifts and its distance from the double run are measured.
//
//   precision_study OUT_DIR [--steps N] [--cells C] [--backend NAME] [--lattice NAME] [--scheme
//   NAME]
//
// (defaults: 1e5 steps, 2000 cells, openmp, every lattice and scheme) writes OUT_DIR/precision.csv,
// a row per run: norm_drift and invariant_drift, the largest |q(t) − q(0)|/|q(0)| over 20 samples
// (the invariant is the scheme's: the leapfrog's Re⟨ψⁿ⁻¹, ψⁿ⟩, the norm for the others);
// state_error, ‖ψ − ψ_double‖/‖ψ_double‖ at the end; phase_error, the overlap ⟨ψ₀|ψ⟩'s argument
// less the double run's (radians); and OUT_DIR/provenance.json.

#include "lattices/crystal.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/scheme_runs.hpp"
#include "verify/study_io.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

namespace {

using namespace decgpe;

struct Settings {
  long steps = 100000;
  double cells = 2000.0;
  std::string backend = "openmp", lattice, scheme; ///< lattice, scheme: "" for all
};

struct Outcome {
  double norm_drift = 0.0, invariant_drift = 0.0, seconds = 0.0;
  Diagnostics last;
  std::vector<Complex> state;
};

double relative_change(double value, double start) {
  return std::abs(value - start) / std::abs(start);
}

Outcome run(const Settings& s, std::string_view scheme, const Problem& p,
            const std::vector<Complex>& psi0, double dt) {
  verify::LiveScheme live(s.backend, scheme, p, dt, psi0);
  const Diagnostics first = live.scheme->diagnostics();
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  constexpr long kSamples = 20;
  for (long k = 1; k <= kSamples; ++k) {
    live.scheme->advance(s.steps * k / kSamples - s.steps * (k - 1) / kSamples);
    o.last = live.scheme->diagnostics();
    o.norm_drift = std::max(o.norm_drift, relative_change(o.last.norm, first.norm));
    o.invariant_drift =
        std::max(o.invariant_drift, relative_change(o.last.invariant, first.invariant));
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.state = live.level(0, p);
  return o;
}

void study(const Settings& s, std::string_view lattice, std::ofstream& csv) {
  Problem p = verify::trap_problem(lattice, s.cells, 1.4, 100.0);
  const std::vector<Complex> psi0 = verify::vortex(p.grid);
  const double dt = 0.5 * verify::scheme_limit("leapfrog", p, psi0);
  for (const SchemeEntry& scheme : scheme_registry()) {
    if (!s.scheme.empty() && s.scheme != scheme.name) {
      continue;
    }
    p.precision = Precision::double_;
    const Outcome fp64 = run(s, scheme.name, p, psi0, dt);
    const double size = verify::distance(p.grid, fp64.state, std::vector<Complex>(psi0.size()));
    for (const Precision precision : {Precision::double_, Precision::single, Precision::mixed}) {
      p.precision = precision;
      const Outcome o = precision == Precision::double_ ? fp64 : run(s, scheme.name, p, psi0, dt);
      const double phase =
          std::remainder(std::atan2(o.last.overlap.im, o.last.overlap.re) -
                             std::atan2(fp64.last.overlap.im, fp64.last.overlap.re),
                         2.0 * std::numbers::pi);
      char line[512];
      std::snprintf(line, sizeof line, "%s,%s,%s,%ld,%.17g,%lld,%.6e,%.6e,%.6e,%.6e,%.3f\n",
                    std::string(lattice).c_str(), std::string(scheme.name).c_str(),
                    std::string(precision_name(precision)).c_str(), s.steps, dt,
                    static_cast<long long>(p.grid.cells()), o.norm_drift, o.invariant_drift,
                    verify::distance(p.grid, o.state, fp64.state) / size, std::abs(phase),
                    o.seconds);
      verify::write_row(csv, line);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT_DIR [--steps N] [--cells C] [--backend NAME] [--lattice NAME] "
                 "[--scheme NAME]\n",
                 argv[0]);
    return 1;
  }
  Settings s;
  for (int k = 2; k + 1 < argc; k += 2) {
    const std::string flag = argv[k], value = argv[k + 1];
    if (flag == "--steps") {
      s.steps = std::stol(value);
    } else if (flag == "--cells") {
      s.cells = std::stod(value);
    } else if (flag == "--backend") {
      s.backend = value;
    } else if (flag == "--lattice") {
      s.lattice = value;
    } else if (flag == "--scheme") {
      s.scheme = value;
    }
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  std::ofstream csv(out / "precision.csv");
  verify::write_row(csv, "lattice,scheme,precision,steps,dt,cells,norm_drift,invariant_drift,"
                         "state_error,phase_error,seconds\n");
  for (const std::string_view lattice : lattices::lattice_names()) {
    if (s.lattice.empty() || s.lattice == lattice) {
      study(s, lattice, csv);
    }
  }
  verify::write_study_provenance(out, argc, argv,
                                 "a row per lattice, scheme and precision: drifts over the steps "
                                 "and the distance from the double run at the end");
  return 0;
}
