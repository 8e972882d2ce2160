#pragma once
// The layout of a results file, written once here (README, "Running a case"): provenance as root
// attributes and /case_toml, /grid, /diagnostics, /analysis, /state/<level>,
// /snapshots/<step>, /viz (io/visualisation.hpp) and /vortex_lines (io/vortex_output.hpp).

#include "hdf5/hdf5_file.hpp"
#include "io/domain_output.hpp"
#include "io/vortex_output.hpp"
#include "setup/case_setup.hpp"
#include "solvers/backend.hpp"
#include "solvers/host_probe.hpp"
#include "solvers/integrator.hpp"

#include <string>
#include <utility>
#include <vector>

namespace decgpe::io {

/// Who ran what, taken when the run starts (so that a case file edited during the run is recorded
/// as it was read).
struct RunIdentity {
  std::string command_line;
  std::string case_file;
  std::string case_text;
  std::string date; ///< UTC, ISO 8601
  std::string host;
  std::string fingerprint; ///< of the trajectory (io/checkpoint.hpp), once the set-up is done
  std::string overrides;   ///< the --set flags, quoted for a shell ("" when none)
  std::string effective_case_text; ///< case_text with the overrides applied (when there are any)
};

/// The identity of a run starting now: the date, the host and the case file's text as read.
RunIdentity identify_run(std::string command_line, std::string case_file, std::string case_text);

/// The host probes of a run (solvers/host_probe.hpp), one row per sample.
struct ProbeSeries {
  std::vector<std::int64_t> step;
  std::vector<double> t;
  std::vector<double> azimuthal_amplitude; ///< row after row of |c_m|, m = 0 … 12
  std::vector<double> cell_norm;
  std::vector<Complex> cell_overlap;

  void add(const ProbeSample& p);
};

/// The diagnostics time series as a run produces it: with each sample the step that reached it
/// (Δt(t) of an adaptive run) and the scheme's step report (Scheme::step_report()).
struct Series {
  std::vector<std::int64_t> step;
  std::vector<double> t, dt, norm, energy, kinetic, trap, interaction, rotation, invariant, max_abs,
      max_diagonal;
  std::vector<Complex> overlap;
  std::vector<std::pair<std::string, std::vector<double>>> report; ///< one column per name
  ProbeSeries probes; ///< at the cadence time.spectrum_every (empty when 0); on rank 0 only
  /// At the cadence analysis.vortex_lines_every (empty when 0); on rank 0 only.
  std::vector<VortexSample> vortex_lines;

  void add(const Sample& s);
};

/// Root attributes: the build, the run's identity, the backend, and every setting of the case
/// (grid, physics, scheme, step and its limit).
void write_provenance(ResultsFile& f, const setup::RunSetup& run, const Backend& backend,
                      const RunIdentity& who);
/// /grid: per local index the circumcentre and volume, with the origin and the box.
void write_grid(ResultsFile& f, const Grid& g);
/// /diagnostics/{step,t,dt,norm,energy,kinetic,trap,interaction,rotation,invariant,max_abs,max_diagonal,
/// overlap} and one dataset per
/// column of the scheme's step report; the probes, when there are any, as
/// /analysis/history/{step,t,azimuthal_amplitude (samples × 13),cell_norm,cell_overlap}; the vortex
/// lines, when sampled, as /vortex_lines (io/vortex_output.hpp).
void write_series(ResultsFile& f, const Series& s);
/// /analysis: the plane z = 0 and its azimuthal spectrum (how the vortex splits); returns the fold.
/// `g` may be the slab of the slices that hold the plane (splitting.hpp's plane_slices()), with
/// the states on it.
int write_analysis(ResultsFile& f, const Grid& g, std::span<const Complex> current,
                   std::span<const Complex> initial);
/// /state/<name> for each of the scheme's levels, from each rank's stored values. Collective.
void write_levels(DomainOutput& out, const std::vector<std::string>& names,
                  const std::vector<std::vector<Complex>>& levels);
/// The snapshots up to `step` of the results file `earlier` (what an interrupted run wrote before
/// the checkpoint it resumes from), when that file is of the same trajectory: each rank reads and
/// writes its owned cells'. Collective.
void carry_snapshots(DomainOutput& out, const std::filesystem::path& earlier,
                     const std::string& fingerprint, long step);
/// A snapshot's name: its step, zero-padded to 12 digits so that name order is step order
/// (steps are at most 10¹²).
std::string snapshot_name(long step);
/// /snapshots/<name> with its time, and its fields for visualisation (/viz/snapshots/<name>), from
/// each rank's owned values of ψ. Collective.
void write_snapshot(DomainOutput& out, long step, double t, std::span<const Complex> owned);

} // namespace decgpe::io
