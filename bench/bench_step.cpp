// Throughput of the schemes' steps per backend, lattice and size (Google Benchmark), through the
// scheme layer as a run uses it. Every benchmark reports the bytes it moves at its byte model's
// floor (neighbours from cache, V computed in the kernel), so bandwidths compare across backends
// and machines:
//   step/<backend>/<lattice>/<dofs>  the fused leapfrog step (the name is its registry entry's
//                                    benchmark_name): 48 B per DOF-update in double (read ψⁿ, read
//                                    ψⁿ⁻¹, write ψⁿ⁺¹), 24 B in single and mixed
//   rk4/<backend>/<lattice>/<dofs>   one RK4 stage: 64 B per DOF-update on average (stages move
//                                    48, 80, 80 and 48 B); DOF-updates count stages
//   <scheme>/<backend>/<lattice>/<dofs>  any other scheme: DOF-updates count its kernel passes and
//                                    the bytes are its Scheme::traffic() (trotter_suzuki: 32 B a
//                                    colour sweep or phase pass; exponential: 32 B a phase pass,
//                                    80 B a Chebyshev term); schemes without a stability limit step
//                                    at twice the leapfrog's
//
// Extra flags, before Google Benchmark's own:
//   --lattices=bcc,c15    lattices to run (default: bcc,c15)
//   --dofs=1e6,8e6        approximate problem sizes in DOFs (default: 1e6)
//   --backends=reference,openmp   backends (default: reference, openmp and, with a GPU, cuda:plain)
//   --schemes=leapfrog,rk4        schemes (default: leapfrog)
//   --tune=TABLE.KEY=v1,v2       a backend tunable's values to compare (decgpe case-keys lists
//                                them: the backends' tables), on the backends that have it; each
//                                adds /<its bench tag><value> to the name, the tunables in the
//                                registry's order whatever the flags'. Repeatable. For example
//                                cuda.block_shape=sweep,1x256z8a1 (the sweep's settings too:
//                                docs/gpu.md) adds /sweep; cuda.steps_per_sweep=1,2,3s2l1 (k,
//                                optionally with the wavefront's shape s<slab>l<lag>) adds /k2, and
//                                only to the leapfrog's benchmarks
//   --omegas=0,0.5               frames rotating at Ω about the trap's axis (default: 0, the lab
//                                frame); each Ω ≠ 0 adds /w<value> to the name
//   --precisions=double,single   numerics.precision of the runs (default: double); single and
//                                mixed add /single or /mixed to the name and move 8-byte values
//                                (a leapfrog update 24 B: Scheme::traffic() at the precision)
//
// With a GPU, the same binary first measures a device-to-device copy (bytes read + written), and
// every GPU result carries copy_fraction = its bandwidth at Scheme::traffic()'s bytes over that
// copy's: the BabelStream-style ceiling. The copy, the device's facts and the timer come from the
// backend registry and the Backend interface, so a device backend of another vendor is benchmarked
// alike.
//
// Method (NVBench's habits): GPU samples are timed on the device (CUDA events on the backend's
// stream: Backend::work_timer()), each after a cache flush (so small states start cold as large
// ones do); every benchmark runs
// kRepetitions times and the JSON holds each repetition with the median, mean, standard deviation,
// coefficient of variation, min and max; the grid is the structure counts whose cell count comes
// closest to the request (within ~1% on every lattice, recorded as the counter dofs); every
// benchmark (samples of at least 0.2 s on a GPU) checks the leapfrog invariant (or RK4's norm) over
// its steps, so a wrong step cannot post a time.

#include "build_info/build_info.hpp"
#include "setup/initial_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stability.hpp"

#include <algorithm>
#include <array>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace decgpe;

/// Device-to-device copy bandwidth measured at start-up (0 without a GPU).
double copy_bandwidth = 0.0;

/// Repetitions of every benchmark: enough for a median and a spread.
constexpr int kRepetitions = 5;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    out.push_back(item);
  }
  return out;
}

/// The structure counts (Sx, Sy, Sz) whose cell count comes closest to `dofs`, among near-cubic
/// boxes (each side within 25% of the cube root of the volume): exact sizes on every lattice.
std::array<int, 3> closest_counts(const lattices::CellComplex& c, double dofs) {
  const double ms = c.cells_per_structure();
  const double side = std::cbrt(dofs / ms * c.box.x * c.box.y * c.box.z); // in structure edges
  std::array<int, 3> best{1, 1, 1};
  double best_error = std::numeric_limits<double>::infinity();
  const auto range = [&](double box) {
    return std::pair{std::max(1, static_cast<int>(0.75 * side / box)),
                     std::max(1, static_cast<int>(1.25 * side / box) + 1)};
  };
  const auto [x0, x1] = range(c.box.x);
  const auto [y0, y1] = range(c.box.y);
  for (int x = x0; x <= x1; ++x) {
    for (int y = y0; y <= y1; ++y) {
      const int z = std::max(1, static_cast<int>(std::lround(dofs / (ms * x * y))));
      const double error = std::abs(ms * x * y * z - dofs);
      if (error < best_error && z * c.box.z >= 0.75 * side && z * c.box.z <= 1.25 * side) {
        best = {x, y, z};
        best_error = error;
      }
    }
  }
  return best;
}

/// About `dofs` cells in a box of side 14 (trap units), the g = 300 interacting trap of the
/// paper's accuracy case, in a frame rotating at `omega` about its axis.
Problem make_problem(const std::string& lattice, double dofs, double omega) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const std::array<int, 3> counts = closest_counts(c, dofs);
  Problem p;
  p.grid = make_grid(c, counts, 14.0 / (counts[0] * c.box.x));
  p.potential.lambda = 1.0;
  p.g = 300.0;
  p.potential.rotation.omega = omega;
  return p;
}

/// The timed loop: device time after a cache flush on a device (its benchmarks use manual time),
/// wall time on the host.
void run_samples(benchmark::State& state, Backend& backend, Scheme& scheme, long steps) {
  if (const std::unique_ptr<WorkTimer> timer = backend.work_timer()) {
    for (auto _ : state) {
      backend.flush_caches();
      timer->start();
      scheme.advance(steps);
      state.SetIterationTime(timer->stop());
    }
    return;
  }
  for (auto _ : state) {
    scheme.advance(steps);
    scheme.synchronize();
  }
}

/// The problem and initial state of the last (lattice, size) asked for: repetitions of a benchmark
/// share them instead of building a 64M-cell state five times.
struct Prepared {
  std::string lattice;
  double dofs = 0.0, omega = 0.0;
  Problem problem;
  std::vector<Complex> psi;
};

/// The precision is set on the problem kept (backends made since keep a reference to it).
const Prepared& prepare(const std::string& lattice, double dofs, double omega,
                        Precision precision) {
  static Prepared last;
  if (last.lattice != lattice || last.dofs != dofs || last.omega != omega) {
    last.psi.clear();
    last.problem = make_problem(lattice, dofs, omega);
    // A size that cannot hold ψ⁰ on the host is refused before it is sampled.
    const auto psi_bytes = static_cast<std::uint64_t>(last.problem.grid.cells()) * sizeof(Complex);
    check_memory({psi_bytes, 0}, free_host_memory(), 0);
    last.psi = sample_normalised(last.problem.grid, HarmonicVortex{1, 1.0}, 0.0);
    last.lattice = lattice;
    last.dofs = dofs;
    last.omega = omega;
  }
  last.problem.precision = precision;
  return last;
}

/// Half the limit by the Gershgorin radius (one pass, safe): the speed of the explicit schemes does
/// not depend on Δt. Past the explicit limits for the others (the exponential's degree grows with
/// Δt).
double benchmark_dt(const Problem& problem, const std::vector<Complex>& psi,
                    const std::string& scheme_name) {
  const double radius = gershgorin_radius(problem.grid, problem.potential, problem.g, psi);
  const double factor = find_scheme(scheme_name).limit_factor;
  return std::isfinite(factor) ? 0.5 * factor / radius : 2.0 / radius;
}

/// Every run checks its own result: the leapfrog invariant is conserved exactly by correct steps,
/// whatever the state does, and so is the norm by the split schemes, up to the rounding of the
/// precision (FP32's stored values: 1e-5 over a benchmark's steps); a decaying invariant (RK4's
/// norm) may only fall, and by little (FP32's rounding may lift it by as much).
bool invariant_behaved(const SchemeEntry& scheme, Precision precision, const Diagnostics& before,
                       const Diagnostics& after) {
  const double change = (after.invariant - before.invariant) / std::abs(before.invariant);
  const double rounding = precision == Precision::double_ ? 1e-9 : 1e-5;
  return after.finite && (scheme.invariant_decays ? change <= rounding && change > -1e-3
                                                  : std::abs(change) <= rounding);
}

/// The steps a sample takes: a two-level scheme (one pass a step) in pairs, so that each sample
/// ends with its buffers in the same roles, 20 on a GPU (or the fewest whole launches of k steps
/// past them); the others' steps take several passes: one on the host, 6 on a GPU.
long steps_per_sample(const SchemeEntry& scheme, bool gpu, long k) {
  if (scheme.levels > 1) {
    return gpu ? (20 + k - 1) / k * k : scheme.levels;
  }
  return gpu ? 6 : 1;
}

/// The counters of a benchmark of `cells` cells, `steps_per_iteration` steps an iteration (k a
/// launch).
void set_counters(benchmark::State& state, const StepTraffic& traffic, double cells,
                  long steps_per_iteration, long k, double omega, bool gpu) {
  const double bytes_per_update = traffic.bytes / traffic.passes;
  const double updates = cells * traffic.passes * static_cast<double>(steps_per_iteration) *
                         static_cast<double>(state.iterations());
  state.counters["dofs"] = cells;
  state.counters["steps_per_sweep"] = static_cast<double>(k);
  state.counters["omega"] = omega;
  state.counters["bytes_per_update"] = bytes_per_update;
  state.counters["dof_updates_per_second"] =
      benchmark::Counter(updates, benchmark::Counter::kIsRate);
  // Whole steps of every cell per second: what a user's run gets, whatever the passes per step
  // (a fusion that saves a pass shows here, not in the per-pass rates).
  state.counters["cell_steps_per_second"] = benchmark::Counter(
      cells * static_cast<double>(steps_per_iteration) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["bytes_per_second"] =
      benchmark::Counter(updates * bytes_per_update, benchmark::Counter::kIsRate);
  if (gpu && copy_bandwidth > 0.0) {
    state.counters["copy_fraction"] = benchmark::Counter(
        updates * bytes_per_update / copy_bandwidth, benchmark::Counter::kIsRate);
  }
}

int failed_benchmarks = 0; // benchmarks run one at a time, on the main thread

/// Ends a benchmark with `why`, and the run with a non-zero exit.
void fail(benchmark::State& state, const std::string& why) {
  state.SkipWithError(why.c_str());
  ++failed_benchmarks;
}

/// A benchmark's scheme on its backend, started from the prepared state and warmed up.
struct StartedRun {
  const Prepared* prepared = nullptr;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Scheme> scheme;
};

StartedRun start_run(const std::string& scheme_name, const std::string& backend_name,
                     const std::string& lattice, double dofs, double omega, Precision precision,
                     const BackendTuning& tuning) {
  StartedRun run;
  run.prepared = &prepare(lattice, dofs, omega, precision);
  const Problem& problem = run.prepared->problem;
  const std::vector<Complex>& psi = run.prepared->psi;
  run.backend = make_backend(backend_name, problem, nullptr, tuning);
  run.scheme = make_scheme(scheme_name, *run.backend, benchmark_dt(problem, psi, scheme_name));
  run.scheme->start({psi, psi, {}});
  run.scheme->advance(2); // warm-up: first touch, caches, graphs, lazy initialisation
  run.scheme->synchronize();
  return run;
}

void step_benchmark(benchmark::State& state, const std::string& scheme_name,
                    const std::string& backend_name, const std::string& lattice, double dofs,
                    double omega, Precision precision, const BackendTuning& tuning) {
  StartedRun run;
  try {
    run = start_run(scheme_name, backend_name, lattice, dofs, omega, precision, tuning);
  } catch (const std::bad_alloc&) {
    std::ostringstream why;
    why << "out of host memory for " << lattice << " at " << dofs << " DOFs";
    fail(state, why.str());
    return;
  } catch (const std::exception& e) { // no GPU, out of GPU memory, a tuning that does not fit
    fail(state, e.what());
    return;
  }
  const Diagnostics before = run.scheme->diagnostics();
  // GPU steps are queued back to back between synchronisations.
  const bool gpu = backend_entry(backend_name).memory != MemorySpace::host;
  const long k = run.backend->steps_per_launch();
  const SchemeEntry& entry = find_scheme(scheme_name);
  const long steps_per_iteration = steps_per_sample(entry, gpu, k);
  run_samples(state, *run.backend, *run.scheme, steps_per_iteration);
  if (!invariant_behaved(entry, precision, before, run.scheme->diagnostics())) {
    fail(state, "the scheme's invariant did not behave: the steps are wrong");
  }
  set_counters(state, run.scheme->traffic(),
               static_cast<double>(run.prepared->problem.grid.cells()), steps_per_iteration, k,
               omega, gpu);
  state.SetLabel(run.backend->device());
}

std::string take_flag(int& argc, char** argv, const std::string& name,
                      const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) == 0) {
      for (int j = i; j + 1 < argc; ++j) {
        argv[j] = argv[j + 1];
      }
      --argc;
      return arg.substr(prefix.size());
    }
  }
  return fallback;
}

/// One tunable's values to compare (--tune).
struct TuneAxis {
  const Tunable* tunable;
  int rank; ///< its place in the registry's order
  std::vector<std::string> values;
};

/// Every --tune flag's axis, in the registry's order; throws std::invalid_argument for a key no
/// backend has.
std::vector<TuneAxis> take_tunes(int& argc, char** argv) {
  std::vector<TuneAxis> axes;
  for (std::string spec; !(spec = take_flag(argc, argv, "tune", "")).empty();) {
    const std::size_t equals = spec.find('=');
    const std::string key = spec.substr(0, equals);
    int rank = 0;
    for (const TunableTable& table : backend_tunables()) {
      for (const Tunable& t : table.keys) {
        if (t.key == key && equals != std::string::npos) {
          axes.push_back({&t, rank, split(spec.substr(equals + 1))});
        }
        ++rank;
      }
    }
    if (axes.empty() || axes.back().tunable->key != key) {
      throw std::invalid_argument("--tune=" + spec +
                                  ": not TABLE.KEY=v1,v2 of a backend's tunable "
                                  "(decgpe case-keys lists them)");
    }
  }
  std::ranges::stable_sort(axes, {}, &TuneAxis::rank);
  return axes;
}

/// Every combination of one value per axis that applies to `backend` and `scheme`, with the
/// benchmark name's suffix: one, untuned, when none applies.
std::vector<std::pair<std::string, BackendTuning>>
tunings(const std::vector<TuneAxis>& axes, const std::string& backend, const std::string& scheme) {
  std::vector<std::pair<std::string, BackendTuning>> out{{"", {}}};
  const std::string_view table = backend_entry(backend).tuning_table;
  for (const TuneAxis& axis : axes) {
    const Tunable& t = *axis.tunable;
    if (table.empty() || !t.key.starts_with(std::string(table) + ".") ||
        !(t.only_scheme.empty() || t.only_scheme == scheme)) {
      continue;
    }
    std::vector<std::pair<std::string, BackendTuning>> next;
    for (const auto& [name, tuning] : out) {
      for (const std::string& value : axis.values) {
        BackendTuning tuned = tuning;
        tuned.values[std::string(t.key)] = value;
        next.emplace_back(name + "/" + std::string(t.bench_tag) + value, std::move(tuned));
      }
    }
    out = std::move(next);
  }
  return out;
}

double min_of(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

/// The backends run unless --backends names others: the registry's benchmarked ones that can run
/// here, the host's first (the order the committed data has). A device's copy bandwidth and facts
/// go in the context, measured once.
std::string default_backends() {
  std::string names;
  const std::span<const BackendEntry> registry = backend_registry();
  for (auto e = registry.rbegin(); e != registry.rend(); ++e) {
    if (!e->benchmarked || !e->unavailable().empty()) {
      continue;
    }
    names += (names.empty() ? "" : ",") + std::string(e->name);
    if (e->copy_bandwidth != nullptr && copy_bandwidth == 0.0) {
      copy_bandwidth = e->copy_bandwidth(std::size_t{1} << 30, 20);
      benchmark::AddCustomContext("gpu_copy_bytes_per_second", std::to_string(copy_bandwidth));
      for (const auto& [key, value] : e->device_facts()) {
        benchmark::AddCustomContext(key, value);
      }
    }
  }
  return names;
}

/// Registers the benchmark of one scheme on one backend, lattice and size with this tuning.
void register_step(const std::string& name, const std::string& scheme, const std::string& backend,
                   const std::string& lattice, double dofs, double omega, Precision precision,
                   const BackendTuning& tuning) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), step_benchmark, scheme, backend, lattice,
                                         dofs, omega, precision, tuning);
  const bool device = backend_entry(backend).memory != MemorySpace::host;
  b->Unit(benchmark::kMillisecond)
      ->MinTime(backend == "reference" ? 2.0
                : device               ? 0.2
                                       : 0.5)
      ->Repetitions(kRepetitions)
      ->ComputeStatistics("min", min_of)
      ->ComputeStatistics("max", max_of);
  if (device) { // timed by the backend's work_timer()
    b->UseManualTime();
  } else {
    b->UseRealTime();
  }
}

/// The lists the flags name.
struct Request {
  std::vector<std::string> lattices, sizes, backends, schemes, omegas;
  std::vector<Precision> precisions;
  std::vector<TuneAxis> tunes;
};

/// The precisions of --precisions; throws std::invalid_argument naming the known ones.
std::vector<Precision> parse_precisions(const std::vector<std::string>& names) {
  std::vector<Precision> out;
  for (const std::string& name : names) {
    const std::optional<Precision> known = precision_named(name);
    if (!known) {
      throw std::invalid_argument("--precisions: '" + name + "' is none of double, single, mixed");
    }
    out.push_back(*known);
  }
  return out;
}

/// The name's suffix of a precision: none for double (the committed baselines' names).
std::string precision_tag(Precision p) {
  return p == Precision::double_ ? "" : "/" + std::string(precision_name(p));
}

/// Every benchmark of the request. Lattice and size outermost: the benchmarks of one problem run
/// together and share its state (prepare() keeps the last), instead of sampling a 64M-cell state
/// for every benchmark.
void register_all(const Request& r) {
  for (const std::string& lattice : r.lattices) {
    for (const std::string& size : r.sizes) {
      const double dofs = std::stod(size);
      for (const std::string& scheme : r.schemes) {
        const std::string prefix(find_scheme(scheme).benchmark_name);
        for (const std::string& backend : r.backends) {
          for (const auto& [tuned, tuning] : tunings(r.tunes, backend, scheme)) {
            for (const std::string& omega : r.omegas) {
              for (const Precision precision : r.precisions) {
                const std::string name = prefix + "/" + backend + "/" + lattice + "/" + size +
                                         tuned + (std::stod(omega) == 0.0 ? "" : "/w" + omega) +
                                         precision_tag(precision);
                register_step(name, scheme, backend, lattice, dofs, std::stod(omega), precision,
                              tuning);
              }
            }
          }
        }
      }
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  try {
    const std::string all_backends = default_backends();
    Request r;
    r.lattices = split(take_flag(argc, argv, "lattices", "bcc,c15"));
    r.sizes = split(take_flag(argc, argv, "dofs", "1e6"));
    r.backends = split(take_flag(argc, argv, "backends", all_backends));
    r.schemes = split(take_flag(argc, argv, "schemes", "leapfrog"));
    r.omegas = split(take_flag(argc, argv, "omegas", "0"));
    r.precisions = parse_precisions(split(take_flag(argc, argv, "precisions", "double")));
    r.tunes = take_tunes(argc, argv);
    for (const std::string& scheme : r.schemes) {
      find_scheme(scheme); // an unknown name fails here, with the known ones
    }
    register_all(r);
  } catch (const std::exception& e) {
    std::cerr << "bench_step: " << e.what() << "\n";
    return 1;
  }
  benchmark::AddCustomContext("decgpe_git_commit", git_commit());
  benchmark::AddCustomContext("decgpe_version", version());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (failed_benchmarks > 0) {
    std::cerr << "bench_step: " << failed_benchmarks
              << " benchmark runs failed (ERROR OCCURRED above names each one's problem)\n";
    return 1;
  }
  return 0;
}
