// The host's share of a vortex-line sample, timed on a run's final state (docs/gpu.md, "Vortex
// lines on the GPU"): the PrimalEdges built (once a run), the lines joined (per sample), and the
// events and summaries over the run's samples (once, at the write). Not a test: it prints medians
// and ranges of wall time; the lines it joins are checked against the run's last sample.
//   vortex_lines_timing RESULTS.h5 [repetitions]
// RESULTS.h5: a run with its final state and `analysis.vortex_lines_every` (the stationary vortex's
// cache where the run found it: $DECGPE_CACHE or out/cache).

#include "analysis/vortex_events.hpp"
#include "analysis/vortex_lines.hpp"
#include "hdf5/hdf5_file.hpp"
#include "io/vortex_output.hpp"
#include "setup/case_setup.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace decgpe {
namespace {

/// The median, least and most of `reps` timings of f, in milliseconds.
struct Timing {
  double median, least, most;
};
Timing time_ms(int reps, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::ranges::sort(ms);
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

void print(const char* what, const Timing& t) {
  std::printf("  %-44s %9.3f ms  (%.3f – %.3f)\n", what, t.median, t.least, t.most);
}

bool same_lines(const std::vector<analysis::VortexLine>& a,
                const std::vector<analysis::VortexLine>& b) {
  return std::ranges::equal(a, b, [](const analysis::VortexLine& x, const analysis::VortexLine& y) {
    return x.charge == y.charge && x.closed == y.closed && x.ends == y.ends &&
           std::ranges::equal(x.points, y.points,
                              [](const lattices::Vec3& p, const lattices::Vec3& q) {
                                return p.x == q.x && p.y == q.y && p.z == q.z;
                              });
  });
}

/// The sample's host work on the edges of `psi` in the region V < cut.
void time_sample(const setup::RunSetup& run, const std::vector<Complex>& psi, double cut,
                 const std::vector<analysis::VortexLine>* recorded, int reps) {
  const Grid& g = run.problem.grid;
  std::vector<PiercedEdge> pierced;
  pierced_edges(run.problem, make_ring_table(g), psi.data(), 0, g.size[2], cut, pierced);
  std::vector<analysis::VortexLine> lines;
  const analysis::PrimalEdges primal(g);
  const Timing join_t = time_ms(reps, [&] { lines = analysis::vortex_lines(primal, pierced); });
  std::size_t points = 0;
  for (const analysis::VortexLine& line : lines) {
    points += line.points.size();
  }
  std::printf("%s: %zu pierced edges, %zu lines, %zu points%s\n",
              cut == kEveryRing ? "whole domain" : "condensate's region", pierced.size(),
              lines.size(), points,
              recorded == nullptr            ? ""
              : same_lines(lines, *recorded) ? " (the run's last sample, bitwise)"
                                             : " (NOT the run's last sample)");
  print("vortex_lines (per sample)", join_t);
}

int run_timing(const char* results, int reps) {
  const io::InputFile f(results);
  const std::string text =
      f.has("/case_toml_effective") ? f.text("/case_toml_effective") : f.text("/case_toml");
  const setup::RunSetup run = setup::prepare_run(setup::parse_case(text, results));
  const std::vector<Complex> psi = f.complexes("/state/current");
  const std::vector<io::VortexSample> samples = io::read_vortex_lines(f);
  const long final_step = f.integer_attribute("steps_done");
  const Grid& g = run.problem.grid;
  std::printf("%s: %s, %lld cells, final step %ld, %zu samples, %d repetitions\n", results,
              g.lattice.c_str(), static_cast<long long>(g.cells()), final_step, samples.size(),
              reps);
  print("PrimalEdges (once a run)", time_ms(reps, [&] { analysis::PrimalEdges primal(g); }));
  const bool last_is_final = !samples.empty() && samples.back().step == final_step;
  time_sample(run, psi, setup::vortex_potential_cut(run),
              last_is_final ? &samples.back().lines : nullptr, reps);
  std::size_t events = 0;
  print("events over the run's samples (once)",
        time_ms(reps, [&] { events = io::vortex_events(samples).size(); }));
  print("summaries of the run's samples (once)", time_ms(reps, [&] {
          for (const io::VortexSample& s : samples) {
            analysis::summarise(s.lines);
          }
        }));
  std::printf("  (%zu events)\n", events);
  time_sample(run, psi, kEveryRing, nullptr, reps);
  return 0;
}

} // namespace
} // namespace decgpe

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: vortex_lines_timing RESULTS.h5 [repetitions]\n");
    return 2;
  }
  try {
    return decgpe::run_timing(argv[1], argc == 3 ? std::stoi(argv[2]) : 11);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vortex_lines_timing: %s\n", e.what());
    return 1;
  }
}
