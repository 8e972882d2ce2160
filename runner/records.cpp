#include "runner/records.hpp"

#include "build_info/build_info.hpp"
#include "io/visualisation.hpp"

#include <algorithm>
#include <stdexcept>
#include <sys/resource.h>

namespace decgpe::runner {

using io::ResultsFile;
using setup::RunSetup;
namespace fs = std::filesystem;

namespace {

/// `text` in single quotes for a POSIX shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) {
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  }
  return out + "'";
}

} // namespace

io::Checkpoint run_state(const RunSetup& setup, const Scheme& scheme, const io::RunIdentity& who,
                         std::optional<io::Checkpoint> resumed) {
  io::Checkpoint state = resumed ? std::move(*resumed) : io::Checkpoint{};
  if (resumed) {
    ++state.restarts;
  }
  state.scheme = setup.config.scheme;
  state.precision = setup.problem.precision;
  state.dt = setup.dt;
  state.fingerprint = who.fingerprint;
  state.case_text = who.case_text;
  state.git_commit = git_commit();
  state.level_names = scheme.level_names();
  return state;
}

void check_resumable(const io::Checkpoint& c, const RunSetup& setup,
                     const std::vector<std::string>& level_names, const std::string& path) {
  const auto refuse = [&path](const std::string& why) {
    throw std::runtime_error("cannot resume from '" + path + "': " + why);
  };
  if (c.scheme != setup.config.scheme) {
    refuse("it is a " + c.scheme + " run, this one is " + setup.config.scheme);
  }
  if (c.precision != setup.problem.precision) {
    refuse("it was stepped in " + std::string(precision_name(c.precision)) +
           " precision, this run is in " + std::string(precision_name(setup.problem.precision)) +
           " (set numerics.precision = \"" + std::string(precision_name(c.precision)) +
           "\" to resume it)");
  }
  if (c.fingerprint != io::fingerprint(setup)) {
    refuse("it is of another problem (the lattice, grid, potential, g, scheme, start, dt or "
           "initial state differ)");
  }
  if (c.level_names != level_names || c.levels.size() != level_names.size() ||
      std::ranges::any_of(c.levels, [&](const std::vector<Complex>& level) {
        return static_cast<std::int64_t>(level.size()) != setup.problem.grid.cells();
      })) {
    refuse("its levels do not match the grid");
  }
  if (c.step > setup.schedule.steps) {
    refuse("it is at step " + std::to_string(c.step) + ", beyond the case's " +
           std::to_string(setup.schedule.steps));
  }
}

std::string set_flags(const std::vector<std::string>& overrides) {
  std::string flags;
  for (const std::string& o : overrides) {
    flags += (flags.empty() ? "" : " ") + std::string("--set ") + quoted(o);
  }
  return flags;
}

std::string resume_command(const RunRequest& o, const fs::path& checkpoint, const fs::path& out) {
  const auto word = [](const std::string& w) {
    const bool plain =
        !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                          "QRSTUVWXYZ0123456789_-+=.,/:@%") == std::string::npos;
    return plain ? w : quoted(w);
  };
  std::string line = "decgpe run " + word(o.case_file);
  line += o.overrides.empty() ? "" : " " + set_flags(o.overrides);
  line += o.scheme.empty() ? "" : " --scheme " + word(o.scheme);
  line += o.backend == "auto" ? "" : " --backend " + word(o.backend);
  line += o.checkpoint.empty() ? "" : " --checkpoint " + word(o.checkpoint);
  line += o.no_state ? " --no-state" : "";
  line += o.quiet ? " --quiet" : "";
  return line + " --restart " + word(checkpoint.string()) + " --out " + word(out.string()) +
         " --force";
}

std::vector<double> host_peaks(const scaleout::MpiSession& mpi) {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  double mine = static_cast<double>(usage.ru_maxrss) * 1024.0; // Linux counts KiB
  std::vector<double> every(static_cast<std::size_t>(mpi.size()), mine);
  if (mpi.active() && mpi.size() > 1) {
    MPI_Gather(&mine, 1, MPI_DOUBLE, every.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  return every;
}

void write_record(ResultsFile& f, const RunSetup& setup, const Scheme& scheme,
                  const io::RunIdentity& who, const Recorder& recorder, const Outcome& outcome,
                  const RunRequest& o, const std::string& stop_reason,
                  std::span<const double> host_peak_bytes) {
  io::write_provenance(f, setup, scheme.backend(), who);
  for (const auto& [name, value] : scheme.properties()) {
    f.attribute("scheme_" + name, value);
  }
  for (const auto& [name, value] : scheme.backend().tuning()) {
    f.attribute("tuning_" + name, value);
  }
  f.attribute("mpi_ranks", static_cast<std::int64_t>(o.mpi->size()));
  if (setup.layout.distributed()) {
    std::vector<std::int64_t> slices;
    for (int r = 0; r < setup.layout.ranks(); ++r) {
      slices.push_back(setup.layout.owned_by(r).end - setup.layout.owned_by(r).begin);
    }
    f.attribute("slab_slices", std::span<const std::int64_t>(slices));
    using setup::SlabBalanceMode;
    const SlabBalanceMode used =
        setup.calibration ? SlabBalanceMode::measured : SlabBalanceMode::even;
    f.attribute("slab_balance", std::string(setup::option_name(used)));
    if (setup.calibration) {
      f.attribute("slab_calibration_cells_per_second",
                  std::span<const double>(setup.calibration->cells_per_second));
      f.attribute("slab_calibration_trial_slices",
                  static_cast<std::int64_t>(setup.calibration->trial_slices));
      f.attribute("slab_calibration_steps", static_cast<std::int64_t>(setup.calibration->steps));
    }
  }
  f.attribute("host_peak_bytes", host_peak_bytes); // per rank, when the results were written
  f.attribute("wall_seconds", recorder.total_seconds());
  f.attribute("steps_done", static_cast<std::int64_t>(outcome.steps_done));
  f.attribute("complete", static_cast<std::int64_t>(stop_reason.empty() ? 1 : 0));
  f.attribute("stop_reason", stop_reason.empty() ? std::string("end") : stop_reason);
  if (!o.restart.empty()) {
    f.attribute("restarted_from", o.restart);
  }
  io::write_grid(f, whole_grid(setup.problem.grid));
  io::write_series(f, recorder.series());
}

} // namespace decgpe::runner
