#pragma once
// What a run writes about itself: the state its checkpoints identify, the check that a checkpoint
// resumes this run, the results' record (provenance, how it ended, grid, series), and the command
// that continues a stopped run.

#include "io/checkpoint.hpp"
#include "io/results.hpp"
#include "runner/run_recorder.hpp"
#include "runner/run_request.hpp"
#include "setup/case_setup.hpp"
#include "solvers/schemes/scheme.hpp"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace decgpe::runner {

/// What identifies the run in its checkpoints; a resumed run's checkpoint as read, else empty.
io::Checkpoint run_state(const setup::RunSetup& setup, const Scheme& scheme,
                         const io::RunIdentity& who, std::optional<io::Checkpoint> resumed);

/// Refuses a checkpoint of another problem, scheme or step.
void check_resumable(const io::Checkpoint& c, const setup::RunSetup& setup,
                     const std::vector<std::string>& level_names, const std::string& path);

/// The --set flags as given, each quoted for a shell ("" when there are none).
std::string set_flags(const std::vector<std::string>& overrides);

/// The command that continues a stopped run: every option its trajectory and output depend on
/// (the case and its overrides, scheme, backend, checkpoint target, --no-state, --quiet), then the
/// checkpoint to resume from. Paths are quoted only where a shell would split or expand them.
std::string resume_command(const RunRequest& o, const std::filesystem::path& checkpoint,
                           const std::filesystem::path& out);

/// Each rank's peak resident host memory so far in bytes, on rank 0 in rank order (collective).
std::vector<double> host_peaks(const scaleout::MpiSession& mpi);

/// Everything but the levels and the analysis: provenance, how the run ended, grid, series.
void write_record(io::ResultsFile& f, const setup::RunSetup& setup, const Scheme& scheme,
                  const io::RunIdentity& who, const Recorder& recorder, const Outcome& outcome,
                  const RunRequest& o, const std::string& stop_reason,
                  std::span<const double> host_peak_bytes);

} // namespace decgpe::runner
