// The work–precision study of the integrators: for each case (one lattice at a fixed grid), every
// scheme over a range of Δt to t = end_time, with
//   time_error   ‖ψ − ψ_ref‖/‖ψ_ref‖ against a converged reference of the same grid
//                (trotter_suzuki4 at a quarter of the leapfrog's limit; its own error is estimated
//                against half that step and recorded),
//   total_error  ‖ψ − ψ₀e^{−iμt}‖/‖ψ₀‖ against the continuum stationary state (space and time),
//   total_error_phase_corrected  min over φ of ‖ψ − e^{iφ}ψ₀‖/‖ψ₀‖: the vortex's shape, without
//                the global phase (μ − μ_h)t that dominates total_error,
// and its cost: wall seconds on the backend (synchronised), kernel passes over the state and bytes
// moved (Scheme::traffic()). The schemes that can adapt their step run again with it: the split
// schemes over a range of θ (the phase criterion), RK4 over a range of tolerances (step doubling),
// each with its fixed step as the longest. Δt is a multiple of the leapfrog's limit 1/ρ(M(ψ⁰)), so
// the lattices compare at equal resolution in time. Writes one JSON; every run checks its own
// results: the errors must be finite, and with --check-orders each scheme's time error must fall at
// its order between its two smallest steps (unless it has reached the reference's error); the
// orders are recorded either way. With --through=T the fixed-step runs go on to T (through the
// vortex's split, T ≥ 60 on the accuracy cases) sampling E = 1 − |⟨ψ₀|ψ⟩| and the energy every
// --sample time units: the split time (E first above 0.01, the paper's observable), the energy's
// largest relative change up to the split and up to T, and the norm's. --seed-amplitude=ε seeds
// ψ⁰ with the azimuthal modes 1–8 (setup's [initial.seed], seed 1), so that the split grows from
// the seed and not from each scheme's own round-off.
//
//   work_precision --cases=a.toml,b.toml [--backend=cuda] [--end-time=5] [--out=study.json]
//                  [--schemes=leapfrog,rk4,...] [--coarsen=F] [--check-orders] [--no-adaptive]
//                  [--through=T] [--sample=S] [--seed-amplitude=EPS]
//                  (h × F and --check-orders: the reduced study of CI)

#include "build_info/build_info.hpp"
#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stability.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace decgpe;

/// Every registered scheme, in the registry's order.
std::vector<std::string> registered_schemes() {
  std::vector<std::string> names;
  for (const SchemeEntry& entry : scheme_registry()) {
    names.emplace_back(entry.name);
  }
  return names;
}

struct Options {
  std::vector<std::string> cases;
  std::string backend = "auto";
  double end_time = 5.0;
  std::string out = "work_precision.json";
  double coarsen = 1.0;        ///< h × this: the reduced study CI runs on a CPU
  bool check_orders = false;   ///< fail unless every scheme shows its order (the reduced study)
  bool adaptive = true;        ///< also the adaptive runs (--no-adaptive: the fixed steps only)
  double through = 0.0;        ///< > end_time: the fixed-step runs go on to it (through the split)
  double sample = 0.1;         ///< time between the samples of E and the energy on the way
  double seed_amplitude = 0.0; ///< > 0: ψ⁰ seeded with the azimuthal modes 1–8 at this ε
  std::vector<std::string> schemes = registered_schemes();
};

/// Δt as multiples of the leapfrog's limit (the registry's limit_factor 1), largest first. An
/// explicit scheme stays below its limit: from 0.9 of it rounded down to two digits (a round step,
/// the one the committed studies used: leapfrog 0.9, RK4 2.5) down three halvings. A scheme
/// without a limit goes from 16 to 1.
std::vector<double> step_multiples(const std::string& scheme) {
  const double factor = find_scheme(scheme).limit_factor;
  if (factor == kUnconditionallyStable) {
    return {16.0, 8.0, 4.0, 2.0, 1.0};
  }
  const double below = 0.9 * factor;
  const double scale = std::pow(10.0, 1.0 - std::floor(std::log10(below)));
  const double largest = std::floor(below * scale) / scale;
  return {largest, largest / 2, largest / 4, largest / 8};
}

/// The adaptive runs' settings by the scheme's step control, loosest first: step doubling's
/// tolerance, or θ of the phase criterion.
std::vector<double> adaptive_settings(const std::string& scheme) {
  if (find_scheme(scheme).adaptive == StepControl::doubling) {
    return {1e-5, 1e-7, 1e-9, 1e-11};
  }
  return {0.4, 0.2, 0.1, 0.05, 0.025};
}

/// The order each scheme's time error must show: the registry's.
double scheme_order(const std::string& scheme) {
  return find_scheme(scheme).order;
}

double norm(const Grid& g, const std::vector<Complex>& a) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += g.volume[i % static_cast<std::size_t>(g.ms)] * norm2(a[i]);
  }
  return std::sqrt(sum);
}

double relative_distance(const Grid& g, const std::vector<Complex>& a,
                         const std::vector<Complex>& b) {
  std::vector<Complex> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    d[i] = a[i] - b[i];
  }
  return norm(g, d) / norm(g, b);
}

/// What a run showed on its way to --through: the split and the drifts.
struct Course {
  double split_t = -1.0;              ///< E first above kSplitError (−1: not by the end)
  double energy_drift_to_split = 0.0; ///< max |E(t) − E(0)|/|E(0)| up to the split (or the end)
  double energy_drift = 0.0;          ///< the same up to the end
  double norm_drift = 0.0;            ///< max |N(t) − N(0)| up to the end
};

/// The split: the paper's E = 1 − |⟨ψ₀|ψ⟩| above 0.01.
constexpr double kSplitError = 0.01;

struct Run {
  std::vector<Complex> psi; ///< at end_time
  long steps = 0;           ///< to end_time
  double dt = 0.0, seconds = 0.0;
  StepTraffic traffic;
  std::vector<std::pair<std::string, double>> properties;
  std::optional<Course> course; ///< with --through
};

/// Samples a running scheme's E and energy into `c` (E(0), N(0) in `first`).
void track(Scheme& scheme, const Diagnostics& first, Course& c) {
  const Diagnostics d = scheme.diagnostics();
  const double drift = std::abs(d.energy - first.energy) / std::abs(first.energy);
  c.energy_drift = std::max(c.energy_drift, drift);
  c.norm_drift = std::max(c.norm_drift, std::abs(d.norm - first.norm));
  if (c.split_t < 0.0) {
    c.energy_drift_to_split = c.energy_drift;
    if (1.0 - std::hypot(d.overlap.re, d.overlap.im) > kSplitError) {
      c.split_t = scheme.clock().time;
    }
  }
}

/// The fixed-step scheme on from end_time to `through`, sampled every `sample` time units (in
/// whole steps); the first samples' Course from ψ⁰'s diagnostics `first`.
Course continue_through(Scheme& scheme, const Diagnostics& first, double through, double sample,
                        long steps_done, double dt, Course c) {
  const long total = std::lround(through / dt);
  const long every = std::max(1L, std::lround(sample / dt));
  for (long step = steps_done; step < total;) {
    const long chunk = std::min(every, total - step);
    step += scheme.advance(chunk);
    track(scheme, first, c);
  }
  return c;
}

/// A run's step control: fixed (the default), or adaptive with these settings.
struct Control {
  StepControl kind = StepControl::fixed;
  AdaptiveSettings settings;
};

/// How far a fixed-step run goes past end_time, and how it is sampled there.
struct Through {
  double until = 0.0; ///< 0: not past end_time
  double sample = 0.1;
};

/// The scheme from ψ⁰ to end_time in whole steps of at most `dt` (adaptive ones when asked), timed
/// on the backend; a fixed-step run sampled on the way when it goes on `through`, and then on.
Run integrate_to(Backend& backend, const std::string& scheme_name, double dt, double end_time,
                 const std::vector<Complex>& psi0, const Control& control = {},
                 const Through& through = {}) {
  Run run;
  run.steps = static_cast<long>(std::ceil(end_time / dt - 1e-9));
  run.dt = end_time / static_cast<double>(run.steps);
  const std::unique_ptr<Scheme> scheme = make_scheme(scheme_name, backend, run.dt);
  scheme->start({psi0, psi0, {}});
  const bool fixed = control.kind == StepControl::fixed;
  if (!fixed) {
    scheme->make_adaptive(control.kind, control.settings);
  }
  const Diagnostics first = scheme->diagnostics();
  scheme->synchronize();
  const auto start = std::chrono::steady_clock::now();
  const long taken = scheme->advance(!fixed ? 1L << 40 : run.steps);
  scheme->synchronize();
  if (control.kind != StepControl::fixed) { // the mean step; the longest is the fixed run's
    run.steps = taken;
    run.dt = end_time / static_cast<double>(taken);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.traffic = scheme->traffic();
  run.properties = scheme->properties();
  run.psi.resize(psi0.size());
  scheme->download(0, run.psi);
  if (fixed && through.until > end_time) { // untimed: the samples would weigh on the cost
    Course course;
    track(*scheme, first, course);
    run.course =
        continue_through(*scheme, first, through.until, through.sample, run.steps, run.dt, course);
  }
  return run;
}

/// A run's errors at end_time.
struct Errors {
  double time = 0.0, total = 0.0, phase_corrected = 0.0;
};

/// Against the reference of the same grid, ψ₀e^{−iμt}, and ψ₀ up to a global phase.
Errors errors_of(const Grid& grid, const std::vector<Complex>& psi,
                 const std::vector<Complex>& reference, const std::vector<Complex>& exact,
                 const std::vector<Complex>& psi0) {
  Complex overlap{0.0, 0.0};
  for (std::size_t i = 0; i < psi.size(); ++i) {
    overlap =
        overlap + grid.volume[i % static_cast<std::size_t>(grid.ms)] * conj_mul(psi0[i], psi[i]);
  }
  const double n = norm(grid, psi), n0 = norm(grid, psi0);
  const double shape = n * n + n0 * n0 - 2.0 * std::hypot(overlap.re, overlap.im);
  return {relative_distance(grid, psi, reference), relative_distance(grid, psi, exact),
          std::sqrt(std::max(0.0, shape)) / n0};
}

/// A run's row of the study: its steps, cost, errors, and its course to --through.
nlohmann::json study_row(const std::string& scheme, double multiple, const Run& r, const Grid& grid,
                         const Errors& e) {
  nlohmann::json row = {
      {"scheme", scheme},
      {"dt_over_leapfrog_limit", multiple},
      {"dt", r.dt},
      {"steps", r.steps},
      {"seconds", r.seconds},
      {"passes", r.traffic.passes * static_cast<double>(r.steps)},
      {"bytes", r.traffic.bytes * static_cast<double>(grid.cells()) * static_cast<double>(r.steps)},
      {"time_error", e.time},
      {"total_error", e.total},
      {"total_error_phase_corrected", e.phase_corrected}};
  if (r.course) {
    row["split_t"] =
        r.course->split_t < 0.0 ? nlohmann::json(nullptr) : nlohmann::json(r.course->split_t);
    row["energy_drift_to_split"] = r.course->energy_drift_to_split;
    row["energy_drift"] = r.course->energy_drift;
    row["norm_drift"] = r.course->norm_drift;
  }
  return row;
}

double max_density(const std::vector<Complex>& psi) {
  double most = 0.0;
  for (const Complex& z : psi) {
    most = std::max(most, norm2(z));
  }
  return most;
}

/// The scheme with adaptive steps over its range of settings: rows marked "adaptive", with the
/// setting, the steps taken and their mean.
void adaptive_runs(Backend& backend, const std::string& scheme, double limit,
                   const std::vector<Complex>& psi0, const Grid& grid,
                   const std::vector<Complex>& reference, const std::vector<Complex>& exact,
                   const Options& o, nlohmann::json& c) {
  const StepControl kind = find_scheme(scheme).adaptive;
  const double longest = step_multiples(scheme).front() * limit; // the fixed runs' largest
  for (const double setting : adaptive_settings(scheme)) {
    // The case's defaults but θ or the tolerance; the density floor 1e-6 of the peak.
    AdaptiveSettings s{o.end_time, longest, 0.1, 1e-6 * max_density(psi0), 1e-8};
    (kind == StepControl::doubling ? s.tolerance : s.theta) = setting;
    const Run r = integrate_to(backend, scheme, longest, o.end_time, psi0, {kind, s});
    const Errors e = errors_of(grid, r.psi, reference, exact, psi0);
    nlohmann::json row = study_row(scheme, r.dt / limit, r, grid, e);
    row["adaptive"] = true;
    row["step_control"] = std::string(step_control_name(kind));
    row[kind == StepControl::doubling ? "tolerance" : "theta"] = setting;
    c["runs"].push_back(row);
    std::printf("  %-16s %s %-8.2g steps %-7ld %8.3f s  time error %.3e  total %.3e\n",
                scheme.c_str(), kind == StepControl::doubling ? "tol" : "θ  ", setting, r.steps,
                r.seconds, e.time, e.total);
    std::fflush(stdout);
  }
}

/// The fixed-step runs of one scheme down its ladder: their rows in `c`, their time errors
/// returned.
std::vector<double> fixed_runs(Backend& backend, const std::string& scheme, double limit,
                               const std::vector<Complex>& psi0, const Grid& grid,
                               const std::vector<Complex>& reference,
                               const std::vector<Complex>& exact, const Options& o,
                               nlohmann::json& c) {
  std::vector<double> errors;
  for (const double multiple : step_multiples(scheme)) {
    const Run r = integrate_to(backend, scheme, multiple * limit, o.end_time, psi0, {},
                               {o.through, o.sample});
    const Errors e = errors_of(grid, r.psi, reference, exact, psi0);
    errors.push_back(e.time);
    nlohmann::json row = study_row(scheme, multiple, r, grid, e);
    for (const auto& [name, value] : r.properties) {
      row[name] = value;
    }
    c["runs"].push_back(row);
    std::printf("  %-16s dt = %-10.4g steps %-7ld %8.3f s  time error %.3e  total %.3e (%.3e)",
                scheme.c_str(), r.dt, r.steps, r.seconds, e.time, e.total, e.phase_corrected);
    if (r.course) {
      std::printf("  split t %-7.3g energy drift %.2e (to the split %.2e)  norm %.1e",
                  r.course->split_t, r.course->energy_drift, r.course->energy_drift_to_split,
                  r.course->norm_drift);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return errors;
}

/// Whether the two smallest steps, which halve Δt, show the scheme's order: the error falls by
/// 2^order while the scheme is in its asymptotic range and above the reference's error. On grids
/// whose initial state carries grid-scale content (BCC, C15: the interpolated continuum state), an
/// explicit scheme's phase error on those modes, t ω_max (ω_max Δt)^p / c, saturates the time error
/// until Δt is far below the limit: recorded, and a failure only where the study asks for the
/// asymptotic range.
bool order_shown(const std::string& scheme, const std::vector<double>& errors,
                 double reference_error, const Grid& grid, nlohmann::json& c) {
  const double last = errors.back(), before = errors[errors.size() - 2];
  const double observed = std::log2(before / last);
  c["orders"][scheme] = observed;
  if (last <= 20.0 * reference_error || observed >= scheme_order(scheme) - 0.3) {
    return true;
  }
  std::cerr << "work_precision: " << scheme << " on " << grid.lattice << ": order " << observed
            << " between its two smallest steps, expected " << scheme_order(scheme) << std::endl;
  return false;
}

/// The case as the study sets it up: the leapfrog's, coarsened and seeded as asked.
setup::RunSetup study_setup(const std::string& path, const Options& o) {
  setup::CaseConfig config = setup::read_case_file(path);
  config.scheme = "leapfrog";
  config.h *= o.coarsen;
  if (o.seed_amplitude > 0.0) {
    config.seed = setup::SeedConfig{};
    config.seed->amplitude = o.seed_amplitude;
  }
  return setup::prepare_run(config);
}

/// One case: the reference, then every scheme and step. Returns false when a check fails.
bool study_case(const std::string& path, const Options& o, nlohmann::json& out) {
  const setup::RunSetup setup = study_setup(path, o);
  const Grid& grid = setup.problem.grid;
  const double limit = 1.0 / setup.spectrum.radius; // the leapfrog's
  const std::unique_ptr<Backend> backend = make_backend(o.backend, setup.problem);
  const std::vector<Complex>& psi0 = setup.current;

  std::vector<Complex> exact(psi0.size()); // ψ₀ e^{−iμt}
  const Complex phase{std::cos(setup.mu * o.end_time), -std::sin(setup.mu * o.end_time)};
  for (std::size_t i = 0; i < psi0.size(); ++i) {
    exact[i] = mul(phase, psi0[i]);
  }
  const Run reference = integrate_to(*backend, "trotter_suzuki4", 0.25 * limit, o.end_time, psi0);
  const Run finer = integrate_to(*backend, "trotter_suzuki4", 0.125 * limit, o.end_time, psi0);
  const double reference_error = relative_distance(grid, reference.psi, finer.psi);
  const double kinetic_limit = kKineticPhaseLimit / kinetic_top(grid);
  std::cout << path << ": " << grid.lattice << ", " << grid.cells() << " cells, leapfrog limit "
            << limit << " (" << setup.spectrum.method << "), split schemes' limit " << kinetic_limit
            << ", reference error " << reference_error << ", spatial error "
            << relative_distance(grid, finer.psi, exact) << std::endl;
  nlohmann::json c = {{"case", path},
                      {"lattice", grid.lattice},
                      {"cells", grid.cells()},
                      {"h", grid.h},
                      {"mu", setup.mu},
                      {"end_time", o.end_time},
                      {"leapfrog_limit", limit},
                      {"leapfrog_limit_method", setup.spectrum.method},
                      {"frozen_limit", 1.0 / setup.spectrum.frozen_radius},
                      {"split_limit", kinetic_limit},
                      {"reference_scheme", "trotter_suzuki4"},
                      {"reference_dt", reference.dt},
                      {"reference_error", reference_error},
                      {"reference_total_error", relative_distance(grid, finer.psi, exact)},
                      {"runs", nlohmann::json::array()}};
  bool valid = true;
  for (const std::string& scheme : o.schemes) {
    const std::vector<double> errors =
        fixed_runs(*backend, scheme, limit, psi0, grid, reference.psi, exact, o, c);
    valid = valid && std::ranges::all_of(errors, [](double e) { return std::isfinite(e); });
    if (o.adaptive && find_scheme(scheme).adaptive != StepControl::fixed) {
      adaptive_runs(*backend, scheme, limit, psi0, grid, reference.psi, exact, o, c);
    }
    valid = valid && (order_shown(scheme, errors, reference_error, grid, c) || !o.check_orders);
  }
  out["device"] = backend->device();
  out["cases"].push_back(c);
  return valid;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    items.push_back(item);
  }
  return items;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* flag) {
      const std::string prefix = std::string("--") + flag + "=";
      return arg.rfind(prefix, 0) == 0 ? arg.substr(prefix.size()) : std::string();
    };
    if (!value("cases").empty()) {
      o.cases = split(value("cases"));
    } else if (!value("backend").empty()) {
      o.backend = value("backend");
    } else if (!value("end-time").empty()) {
      o.end_time = std::stod(value("end-time"));
    } else if (!value("out").empty()) {
      o.out = value("out");
    } else if (arg == "--check-orders") {
      o.check_orders = true;
    } else if (arg == "--no-adaptive") {
      o.adaptive = false;
    } else if (!value("coarsen").empty()) {
      o.coarsen = std::stod(value("coarsen"));
    } else if (!value("through").empty()) {
      o.through = std::stod(value("through"));
    } else if (!value("sample").empty()) {
      o.sample = std::stod(value("sample"));
    } else if (!value("seed-amplitude").empty()) {
      o.seed_amplitude = std::stod(value("seed-amplitude"));
    } else if (!value("schemes").empty()) {
      o.schemes = split(value("schemes"));
    } else {
      throw std::invalid_argument("unknown argument '" + arg.substr(0, 64) + "'");
    }
  }
  if (o.cases.empty() || !(o.end_time > 0.0) || !std::isfinite(o.end_time) || !(o.coarsen >= 1.0) ||
      !std::isfinite(o.coarsen) || !(o.sample > 0.0) || !std::isfinite(o.through) ||
      !(o.through >= 0.0) || !(o.seed_amplitude >= 0.0) || !(o.seed_amplitude < 1.0)) {
    throw std::invalid_argument("usage: work_precision --cases=a.toml[,b.toml] [--backend=NAME] "
                                "[--end-time=T>0] [--coarsen=F>=1] [--out=FILE] [--schemes=a,b] "
                                "[--check-orders] [--no-adaptive] [--through=T] [--sample=S>0] "
                                "[--seed-amplitude=0<=EPS<1]");
  }
  for (const std::string& s : o.schemes) {
    find_scheme(s);
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    nlohmann::json out = {{"decgpe_git_commit", git_commit()},
                          {"decgpe_version", version()},
                          {"backend", o.backend},
                          {"coarsen", o.coarsen},
                          {"end_time", o.end_time},
                          {"through", o.through},
                          {"seed_amplitude", o.seed_amplitude},
                          {"cases", nlohmann::json::array()}};
    bool valid = true;
    for (const std::string& path : o.cases) {
      valid = study_case(path, o, out) && valid;
    }
    std::ofstream(o.out) << out.dump(1) << '\n';
    return valid ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "work_precision: " << e.what() << std::endl;
    return 1;
  }
}
