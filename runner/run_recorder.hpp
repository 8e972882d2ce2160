#pragma once
// What a run records while it steps: the diagnostics series, snapshots, checkpoints on their
// cadences, and the decision to stop at a step boundary (a signal, the wall-clock limit). Every
// buffer it gathers into is allocated when it is made, before the first step.

#include "analysis/vortex_lines.hpp"
#include "io/checkpoint.hpp"
#include "io/domain_output.hpp"
#include "solvers/integrator.hpp"
#include "solvers/scaleout/decomposition.hpp"
#include "solvers/scaleout/mpi_session.hpp"

#include <chrono>
#include <deque>
#include <filesystem>
#include <future>
#include <optional>

namespace decgpe::runner {

struct RecorderSettings {
  io::ResultsFile* file = nullptr;    ///< null on the ranks that do not write (all but rank 0)
  io::DomainOutput* output = nullptr; ///< the results' whole-domain datasets, on every rank
  bool quiet = false;
  std::filesystem::path checkpoint;
  double checkpoint_minutes = 0.0; ///< 0: none by time
  double max_seconds = 0.0;        ///< stop before this much wall time (0: no limit) ...
  std::chrono::steady_clock::time_point process_start; ///< ... since this (the batch job's clock)
  const scaleout::MpiSession* mpi = nullptr;
  const scaleout::Decomposition* layout = nullptr; ///< this process's slices of the domain
  std::span<const Complex> initial; ///< ψ⁰ on this process's cells, what the probes compare with
  bool vortex_lines = false;        ///< the schedule samples the vortex lines
  double vortex_potential_cut = 0.0; ///< the rings measured: V < this (Backend::vortex_flux)
};

class Recorder final : public RunObserver {
public:
  /// `state` names the run (scheme, Δt, fingerprint, case, build) and holds what a resumed run
  /// brings: its series, its levels on this process's cells (`grid`), step and earlier wall time.
  /// Every buffer is made here, of this process's cells (no rank holds the domain).
  Recorder(const RecorderSettings& settings, const Grid& grid, io::Checkpoint state);

  void on_diagnostics(const Sample& s) override;
  void on_snapshot(long step, double t, Scheme& scheme) override;
  void on_probe(long step, double t, Scheme& scheme) override;
  /// Makes, before the clock starts, what the vortex-line samples need: the backend's buffers
  /// for the list and its kernels loaded (one flux of the start's level, its list dropped; the
  /// step-0 sample takes its own). Collective.
  void prepare(Scheme& scheme);
  /// The pierced edges from the backend (only they leave a GPU; the slabs gather them), joined
  /// into lines on rank 0 on a thread of its own while the run steps on, up to kJoinsInFlight
  /// samples at once; the series has them in order once joined, every one by a checkpoint's
  /// write and the clock's stop. Collective.
  void on_vortex_lines(long step, double t, Scheme& scheme) override;
  void on_progress(long step, double t, double done) override;
  void on_checkpoint(long step, double t, Scheme& scheme) override;
  bool keep_going(long step, double t, Scheme& scheme) override;

  /// Every level of the scheme on this process's cells, into the buffers made at construction
  /// (collective over ranks).
  const std::vector<std::vector<Complex>>& gather(Scheme& scheme);
  /// A resumed run's levels as its checkpoint held them, until gather() replaces them.
  const std::vector<std::vector<Complex>>& levels() const { return state_.levels; }
  /// /analysis of ψ = `current` (this process's cells) into the results on rank 0: the plane z = 0
  /// and its spectrum, from the slices around it gathered there. Returns the fold (0 on the other
  /// ranks). Collective.
  int write_analysis(std::span<const Complex> current) const;
  const io::Series& series() const { return state_.series; }
  /// Marks the first and the last step of this part of the run: what seconds() measures (the
  /// last vortex-line sample's join included).
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
  const scaleout::Decomposition& layout() const { return *settings_.layout; }
  /// The plane's slices of `psi` (this process's cells), on rank 0.
  std::vector<Complex> on_plane(std::span<const Complex> psi) const;
  /// The joined samples at the front of joining_ into the series; with `wait`, the front's at
  /// least, once joined.
  void settle_vortex_lines(bool wait);
  void settle_every_vortex_sample();

  RecorderSettings settings_;
  const Grid& grid_;
  io::Checkpoint state_; ///< its levels this process's cells
  double wall_before_;
  std::vector<Complex> snapshot_;
  Grid plane_;                                  ///< the slices around z = 0 (plane_slices())
  std::vector<Complex> plane_initial_;          ///< ψ⁰ there, on rank 0
  std::optional<analysis::PrimalEdges> primal_; ///< the whole domain's, on rank 0 when sampled
  struct JoiningSample {
    io::VortexSample sample; ///< its step and t; the lines come from ...
    std::future<std::vector<analysis::VortexLine>> lines; ///< ... the join
  };
  static constexpr std::size_t kJoinsInFlight = 4; ///< joins of ~1 interval each: room to spare
  std::deque<JoiningSample> joining_;              ///< oldest first
  std::future<void> list_taken_; ///< the newest sample's list is off the backend's buffers
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

} // namespace decgpe::runner
