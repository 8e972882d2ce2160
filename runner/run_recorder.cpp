#include "runner/run_recorder.hpp"

#include "io/results.hpp"
#include "runner/stop_signals.hpp"
#include "solvers/host_probe.hpp"
#include "solvers/nvtx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace decgpe::runner {

namespace {

/// The latest diagnostics sample for the progress line: the norm and E = 1 − |⟨ψ₀|ψ⟩|, already
/// measured, so that showing them costs the run nothing; with its time when it is not this step's.
std::string latest_sample(const io::Series& s, long step) {
  char text[96];
  const int n = std::snprintf(text, sizeof text, "norm %.9g  E %.3e", s[&Diagnostics::norm].back(),
                              1.0 - std::hypot(s.overlap.back().re, s.overlap.back().im));
  if (s.step.back() != step) {
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), " at t = %.4g", s.t.back());
  }
  return text;
}

/// The backend's list, with `taken` told once it is (or why it could not be).
std::vector<PiercedEdge> take(std::future<std::vector<PiercedEdge>>& list,
                              std::promise<void>& taken) {
  try {
    std::vector<PiercedEdge> pierced = list.get();
    taken.set_value();
    return pierced;
  } catch (...) {
    taken.set_exception(std::current_exception());
    throw;
  }
}

} // namespace

Recorder::Recorder(const RecorderSettings& settings, const Grid& grid, io::Checkpoint state)
    : settings_(settings), grid_(grid), state_(std::move(state)), wall_before_(state_.wall_seconds),
      tty_(isatty(fileno(stderr)) != 0) {
  state_.levels.resize(state_.level_names.size());
  for (std::vector<Complex>& level : state_.levels) { // a resumed run's hold its checkpoint's
    level.resize(static_cast<std::size_t>(grid.cells()));
  }
  snapshot_.resize(static_cast<std::size_t>(grid.cells()));
  // The slices around z = 0 that the spectrum and the plane are taken on, gathered on rank 0.
  const auto [first, last] = plane_slices(grid_);
  plane_ = make_slab(decgpe::whole_grid(grid_), first, last, first, last);
  plane_initial_ = layout().gather_slices(settings_.initial, first, last, grid_.slice_cells());
  if (settings_.vortex_lines && root()) {
    primal_.emplace(decgpe::whole_grid(grid_));
  }
}

std::vector<Complex> Recorder::on_plane(std::span<const Complex> psi) const {
  return layout().gather_slices(psi, plane_.z_offset, plane_.z_offset + plane_.size[2],
                                grid_.slice_cells());
}

int Recorder::write_analysis(std::span<const Complex> current) const {
  const std::vector<Complex> plane = on_plane(current);
  return root() ? io::write_analysis(*settings_.file, plane_, plane, plane_initial_) : 0;
}

void Recorder::start_clock() {
  start_ = Clock::now();
  stopped_at_ = -1.0;
}

void Recorder::stop_clock() {
  settle_every_vortex_sample();
  stopped_at_ = seconds();
}

double Recorder::seconds() const {
  return stopped_at_ >= 0.0 ? stopped_at_
                            : std::chrono::duration<double>(Clock::now() - start_).count();
}

void Recorder::on_diagnostics(const Sample& s) {
  state_.series.add(s);
}

void Recorder::on_snapshot(long step, double t, Scheme& scheme) {
  scheme.download(0, snapshot_); // collective over ranks: every rank takes part
  io::write_snapshot(*settings_.output, step, t, settings_.output->owned(snapshot_));
}

void Recorder::on_probe(long step, double t, Scheme& scheme) {
  scheme.download(0, snapshot_);
  // The cell sums slice by slice over every rank (the same bits on any split), the spectrum on the
  // plane's slices gathered on rank 0.
  const SliceSums sums = cell_sums_by_slice(grid_, snapshot_, settings_.initial);
  ProbeSample p;
  p.step = step;
  p.t = t;
  p.cell_norm = layout().sum_slices(sums.norm);
  p.cell_overlap = {layout().sum_slices(sums.overlap_re), layout().sum_slices(sums.overlap_im)};
  const std::vector<Complex> plane = on_plane(snapshot_);
  if (root()) {
    p.azimuthal_amplitude = azimuthal_spectrum(plane_, plane, plane_initial_).amplitude;
    state_.series.probes.add(p);
  }
}

void Recorder::prepare(Scheme& scheme) {
  if (settings_.vortex_lines) {
    scheme.vortex_flux(settings_.vortex_potential_cut).get();
  }
}

void Recorder::on_vortex_lines(long step, double t, Scheme& scheme) {
  if (list_taken_.valid()) {
    list_taken_.get(); // the backend's buffers hold the last list until it is taken
  }
  std::future<std::vector<PiercedEdge>> pierced =
      scheme.vortex_flux(settings_.vortex_potential_cut);
  if (!root()) {
    pierced.get();
    return;
  }
  settle_vortex_lines(joining_.size() >= kJoinsInFlight);
  std::promise<void> taken;
  list_taken_ = taken.get_future();
  // The list's arrival and its join (2-4 ms for the accuracy case's 17k edges on the GPU's host)
  // would leave the GPU idle; the steps queued meanwhile keep it busy. PrimalEdges is immutable.
  joining_.push_back(
      {{step, t, {}},
       std::async(std::launch::async, [&primal = *primal_, pierced = std::move(pierced),
                                       taken = std::move(taken)]() mutable {
         return analysis::vortex_lines(primal, take(pierced, taken));
       })});
}

void Recorder::settle_every_vortex_sample() {
  while (!joining_.empty()) {
    settle_vortex_lines(true);
  }
}

void Recorder::settle_vortex_lines(bool wait) {
  while (!joining_.empty() && (wait || joining_.front().lines.wait_for(std::chrono::seconds(0)) ==
                                           std::future_status::ready)) {
    io::VortexSample& sample = joining_.front().sample;
    sample.lines = joining_.front().lines.get();
    state_.series.vortex_lines.push_back(std::move(sample));
    joining_.pop_front();
    wait = false; // one at a time, then whatever else is done
  }
}

void Recorder::on_progress(long step, double t, double done) {
  const double elapsed = seconds();
  const bool finished = done >= 1.0;
  if (first_done_ < 0.0) { // where this part of the run began, near enough (≤ one chunk in)
    first_done_ = done;
    first_elapsed_ = elapsed;
  }
  if (settings_.quiet || !root() || elapsed < 3.0 ||
      (!finished && elapsed - last_print_ < (tty_ ? 0.5 : 10.0))) {
    return;
  }
  last_print_ = elapsed;
  const double rate = static_cast<double>(step - state_.step) / elapsed;
  const double pace = (done - first_done_) / (elapsed - first_elapsed_); // fraction per second
  const double eta = pace > 0.0 ? (1.0 - done) / pace : 0.0;
  std::fprintf(stderr, "%sstep %ld  t = %.4g  %.1f%%  %s  %.3g M cell-updates/s  ETA %.0f s%s",
               tty_ ? "\r" : "", step, t, 100.0 * done, latest_sample(state_.series, step).c_str(),
               rate * static_cast<double>(grid_.global_cells()) * 1e-6, eta,
               tty_ && !finished ? "   " : "\n");
  std::fflush(stderr);
}

const std::vector<std::vector<Complex>>& Recorder::gather(Scheme& scheme) {
  for (std::size_t k = 0; k < state_.levels.size(); ++k) {
    scheme.download(static_cast<int>(k), state_.levels[k]);
  }
  return state_.levels;
}

void Recorder::on_checkpoint(long step, double t, Scheme& scheme) {
  const NvtxRange range("checkpoint");
  const double began = seconds();
  settle_every_vortex_sample();
  gather(scheme);
  io::Checkpoint& c = state_; // every rank's levels; the rest is rank 0's to write
  const long resumed_at = c.step;
  c.step = step;
  c.t = t;
  c.last_dt = scheme.clock().last_dt;
  c.next_dt = scheme.clock().next_dt;
  c.initial_max_abs = c.series[&Diagnostics::max_abs].front();
  c.wall_seconds = wall_before_ + began;
  io::write_checkpoint(settings_.checkpoint, c, grid_, layout());
  c.step = resumed_at;
  c.wall_seconds = wall_before_;
  last_checkpoint_step_ = step;
  last_checkpoint_ = seconds();
  checkpoint_seconds_ = last_checkpoint_ - began;
}

bool Recorder::keep_going(long step, double t, Scheme& scheme) {
  const double elapsed = seconds();
  longest_interval_ = std::max(longest_interval_, elapsed - last_boundary_);
  last_boundary_ = elapsed;
  // Stop while the next interval, a checkpoint and the results still fit in the limit, counted
  // from the process's start (the set-up included, as a batch system counts).
  const double margin = 2.0 * longest_interval_ + 2.0 * checkpoint_seconds_ + 1.0;
  const double since_start =
      std::chrono::duration<double>(Clock::now() - settings_.process_start).count();
  int flags[3] = {StopSignals::received(),
                  settings_.max_seconds > 0.0 && since_start + margin >= settings_.max_seconds,
                  settings_.checkpoint_minutes > 0.0 &&
                          elapsed - last_checkpoint_ >= 60.0 * settings_.checkpoint_minutes
                      ? 1
                      : 0};
  // The ranks decide together: each sees its own signals and clock.
  if (settings_.mpi != nullptr && settings_.mpi->size() > 1) {
    MPI_Allreduce(MPI_IN_PLACE, flags, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  const bool stop = flags[0] != 0 || flags[1] != 0;
  if ((stop || flags[2] != 0) && last_checkpoint_step_ != step) {
    on_checkpoint(step, t, scheme);
  }
  stop_signal_ = flags[0];
  return !stop;
}

} // namespace decgpe::runner
