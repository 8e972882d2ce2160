#pragma once
// A checkpoint: everything a run needs to go on bitwise as if it had not stopped — the scheme's
// levels, the step, the guard's reference, the diagnostics so far — with the case text and the
// build that wrote it. Over ranks each writes its slab's cells beside the file, which presents the
// levels whole (io/domain_output.hpp): it restarts on any backend and any number of ranks, each
// rank reading only its slab's slices.

#include "io/results.hpp"
#include "solvers/precision.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace decgpe::io {

struct Checkpoint {
  std::string scheme;
  /// What its levels were stepped in: they are stored in FP64 (a single or mixed run's FP32 values
  /// exactly), and resume only in the same precision.
  Precision precision = Precision::double_;
  std::int64_t step = 0;
  double t = 0.0;
  double dt = 0.0;              ///< the fixed step, or an adaptive run's longest
  double last_dt = 0.0;         ///< the step that reached t
  double next_dt = 0.0;         ///< the step doubling's next attempt (dt otherwise)
  double initial_max_abs = 0.0; ///< the guard's reference: max|ψ| at step 0
  double wall_seconds = 0.0;    ///< time stepping so far, over every part of the run
  std::int64_t restarts = 0;    ///< how many times the run has been resumed before this part
  std::string fingerprint;      ///< of everything the trajectory depends on (see fingerprint())
  std::string case_text;
  std::string git_commit; ///< of the build that wrote it
  std::vector<std::string> level_names;
  std::vector<std::vector<Complex>> levels; ///< this process's stored cells of each level
  Series series;
};

/// A hash of what the states depend on: lattice, grid, placement, potential, g, scheme, start, Δt,
/// the step control and the initial levels; not the run's length, cadences or output. A checkpoint
/// resumes a run only with the same fingerprint.
std::string fingerprint(const setup::RunSetup& run);

/// Writes atomically: under a temporary name, synced, then renamed over `path`, so that the
/// previous checkpoint stays until this one is complete. Collective over the ranks of `layout`:
/// each writes the owned cells of its levels (c.levels: the stored cells of `grid`, its part of the
/// domain; io/domain_output.hpp), the first rank everything else.
void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c, const Grid& grid,
                      const scaleout::Decomposition& layout);
/// Throws std::runtime_error with one line for a file that is not a complete decgpe checkpoint.
/// Everything but the levels (read_checkpoint_levels(), once the set-up knows the slab).
Checkpoint read_checkpoint(const std::filesystem::path& path);
/// c.levels ← values [offset, offset + count) of each level, of `whole` values each; throws
/// std::runtime_error with one line when the checkpoint's levels are of another size.
void read_checkpoint_levels(const std::filesystem::path& path, Checkpoint& c, std::uint64_t whole,
                            std::uint64_t offset, std::uint64_t count);

} // namespace decgpe::io
