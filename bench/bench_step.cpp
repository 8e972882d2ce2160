// Throughput of the leapfrog step per backend, lattice and size (Google Benchmark). Every benchmark
// reports the bytes it moves at the model's floor of 48 B per DOF-update (read ψⁿ, read ψⁿ⁻¹, write
// ψⁿ⁺¹; neighbours from cache, V computed in the kernel), so bandwidths compare across backends and
// machines.
//
// Extra flags, before Google Benchmark's own:
//   --lattices=bcc,c15    lattices to run (default: bcc,c15)
//   --dofs=1e6,8e6        approximate problem sizes in DOFs (default: 1e6)
//   --backends=reference,openmp   backends (default: reference, openmp and, with a GPU, cuda:plain
//   and cuda:shared)
//
// With a GPU, the same binary first measures a device-to-device copy (bytes read + written), and
// every GPU result carries copy_fraction = its 48-B/update bandwidth over that copy's: the
// BabelStream-style ceiling.

#include "cli/build_info.hpp"
#include "solvers/backend.hpp"
#include "solvers/initial_state.hpp"

#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <benchmark/benchmark.h>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace decgpe;

constexpr double kBytesPerUpdate = 48.0;

/// Device-to-device copy bandwidth measured at start-up (0 without a GPU).
double copy_bandwidth = 0.0;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    out.push_back(item);
  }
  return out;
}

/// A cube of structures with about `dofs` cells, the g = 300 interacting trap of the paper's
/// accuracy case.
Problem make_problem(const std::string& lattice, double dofs) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const int n =
      std::max(2, static_cast<int>(std::lround(std::cbrt(dofs / c.cells_per_structure()))));
  Problem p;
  p.grid = make_grid(c, {n, std::max(1, static_cast<int>(std::lround(n / c.box.y))), n}, 14.0 / n);
  p.potential.lambda = 1.0;
  p.g = 300.0;
  return p;
}

void step_benchmark(benchmark::State& state, const std::string& backend_name,
                    const std::string& lattice, double dofs) {
  Problem problem = make_problem(lattice, dofs);
  const std::vector<Complex> psi = sample_normalised(problem.grid, HarmonicVortex{1, 1.0}, 0.0);
  problem.dt = 0.5 * stability_bound(problem.grid, problem.potential, problem.g, psi);
  const std::unique_ptr<Backend> backend = make_backend(backend_name, problem);
  backend->load(psi, psi, psi);
  backend->advance(2); // warm-up: first touch, caches, lazy initialisation
  backend->synchronize();
  const double invariant = backend->diagnostics().invariant;
  // Even, so that each iteration ends with the buffers in the same roles; GPU steps are queued back
  // to back between synchronisations.
  const long steps_per_iteration = backend_name.starts_with("cuda") ? 20 : 2;
  for (auto _ : state) {
    backend->advance(steps_per_iteration);
    backend->synchronize();
  }
  // Every run checks its own result: the leapfrog invariant is conserved exactly by correct steps,
  // whatever the state does.
  const Diagnostics d = backend->diagnostics();
  if (!d.finite || std::abs(d.invariant - invariant) > 1e-10 * std::abs(invariant)) {
    state.SkipWithError("the leapfrog invariant was not conserved: the steps are wrong");
  }
  const double cells = static_cast<double>(problem.grid.cells());
  const double updates =
      cells * static_cast<double>(steps_per_iteration) * static_cast<double>(state.iterations());
  state.counters["dofs"] = cells;
  state.counters["dof_updates_per_second"] =
      benchmark::Counter(updates, benchmark::Counter::kIsRate);
  state.counters["bytes_per_second"] =
      benchmark::Counter(updates * kBytesPerUpdate, benchmark::Counter::kIsRate);
  if (backend_name.starts_with("cuda") && copy_bandwidth > 0.0) {
    state.counters["copy_fraction"] =
        benchmark::Counter(updates * kBytesPerUpdate / copy_bandwidth, benchmark::Counter::kIsRate);
  }
  state.SetLabel(backend->device());
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

} // namespace

int main(int argc, char** argv) {
  std::string all_backends = "reference,openmp";
#if DECGPE_HAVE_CUDA
  if (cuda::device_available()) {
    all_backends += ",cuda:plain,cuda:shared";
    copy_bandwidth = cuda::measure_copy_bandwidth(std::size_t{1} << 30, 20);
    benchmark::AddCustomContext("gpu_copy_bytes_per_second", std::to_string(copy_bandwidth));
    for (const auto& [key, value] : cuda::device_context()) {
      benchmark::AddCustomContext(key, value);
    }
  }
#endif
  const auto lattices = split(take_flag(argc, argv, "lattices", "bcc,c15"));
  const auto sizes = split(take_flag(argc, argv, "dofs", "1e6"));
  const auto backends = split(take_flag(argc, argv, "backends", all_backends));
  for (const std::string& backend : backends) {
    for (const std::string& lattice : lattices) {
      for (const std::string& size : sizes) {
        const double dofs = std::stod(size);
        benchmark::RegisterBenchmark(("step/" + backend + "/" + lattice + "/" + size).c_str(),
                                     step_benchmark, backend, lattice, dofs)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(backend == "reference" ? 2.0 : 0.5);
      }
    }
  }
  benchmark::AddCustomContext("decgpe_git_commit", git_commit());
  benchmark::AddCustomContext("decgpe_version", version());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
