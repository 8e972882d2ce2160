#pragma once
// What a run records while it steps: the diagnostics series, snapshots, checkpoints on their
// cadences, and the decision to stop at a step boundary (a signal, the wall-clock limit). Every
// buffer it gathers into is allocated when it is made, before the first step.

#include "io/checkpoint.hpp"
#include "solvers/integrator.hpp"
#include "solvers/scaleout/decomposition.hpp"
#include "solvers/scaleout/mpi_session.hpp"

#include <chrono>
#include <filesystem>

namespace decgpe::cli {

struct RecorderSettings {
  io::ResultsFile* file = nullptr; ///< null on the ranks that do not write (all but rank 0)
  bool quiet = false;
  std::filesystem::path checkpoint;
  double checkpoint_minutes = 0.0; ///< 0: none by time
  double max_seconds = 0.0;        ///< stop before this much wall time (0: no limit) ...
  std::chrono::steady_clock::time_point process_start; ///< ... since this (the batch job's clock)
  const scaleout::MpiSession* mpi = nullptr;
  const scaleout::Decomposition* layout = nullptr; ///< this process's slices of the domain
  std::span<const Complex> initial; ///< ψ⁰ on this process's cells, what the probes compare with
};

class Recorder final : public RunObserver {
public:
  /// `state` names the run (scheme, Δt, fingerprint, case, build) and holds what a resumed run
  /// brings: its series, its levels on this process's cells (`grid`), step and earlier wall time.
  /// The buffers the results are gathered into are made here: the whole domain's on rank 0.
  Recorder(const RecorderSettings& settings, const Grid& grid, io::Checkpoint state);

  void on_diagnostics(const Sample& s) override;
  void on_snapshot(long step, double t, Scheme& scheme) override;
  void on_probe(long step, double t, Scheme& scheme) override;
  void on_progress(long step, double t, double done) override;
  void on_checkpoint(long step, double t, Scheme& scheme) override;
  bool keep_going(long step, double t, Scheme& scheme) override;

  /// Every level of the scheme, whole domain, into the buffers made at construction (on rank 0;
  /// collective over ranks).
  const std::vector<std::vector<Complex>>& gather(Scheme& scheme);
  /// ψ⁰ of the whole domain (on rank 0).
  std::span<const Complex> initial() const;
  /// The whole domain's grid.
  const Grid& whole_grid() const { return whole_; }

  /// A resumed run's levels on this process's cells, as its checkpoint held them.
  const std::vector<std::vector<Complex>>& resumed_levels() const;
  const io::Series& series() const { return state_.series; }
  /// Marks the first and the last step of this part of the run: what seconds() measures.
  void start_clock();
  void stop_clock();
  /// Wall time of stepping in this part of the run (checkpoints and snapshots included), and over
  /// all its parts.
  double seconds() const;
  double total_seconds() const { return state_.wall_seconds + seconds(); }
  /// The signal that stopped the run, or 0 (the wall-clock limit, or not stopped).
  int stop_signal() const { return stop_signal_; }

private:
  bool root() const { return settings_.file != nullptr; }

  /// The scheme's level `level` into `whole` (the whole domain's, on rank 0); collective.
  void download(Scheme& scheme, int level, std::vector<Complex>& whole);

  RecorderSettings settings_;
  const Grid& grid_;
  Grid whole_;
  io::Checkpoint state_; ///< its levels the whole domain's on rank 0 (empty elsewhere)
  double wall_before_;
  std::vector<std::vector<Complex>> slab_levels_; ///< over ranks: this rank's cells of each level
  std::vector<Complex> snapshot_;                 ///< the whole domain's, on rank 0
  std::vector<Complex> initial_;                  ///< over ranks: ψ⁰ gathered on rank 0
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  double stopped_at_ = -1.0; ///< seconds() once the clock is stopped
  double last_print_ = 0.0, last_checkpoint_ = 0.0, last_boundary_ = 0.0;
  double longest_interval_ = 0.0, checkpoint_seconds_ = 0.0;
  double first_done_ = -1.0, first_elapsed_ = 0.0; ///< on_progress's first call in this process
  long last_checkpoint_step_ = -1;
  int stop_signal_ = 0;
  bool tty_;
};

} // namespace decgpe::cli
