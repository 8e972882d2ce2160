#pragma once
// SIGINT, SIGTERM, SIGUSR1 and SIGHUP stop a run at its next step boundary instead of killing it:
// the handler only notes the signal; the run checkpoints, writes what it has and says how to
// resume; before the steps (the set-up), the run polls for it and stops at once, writing nothing.
// A second signal says so and lets the stop finish its checkpoint (it used to kill the run
// mid-write, leaving debris); a third ends the process at once.

namespace decgpe::runner {

class StopSignals {
public:
  StopSignals();  ///< installs the handlers
  ~StopSignals(); ///< restores the dispositions found
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The first signal received since construction (held: since the hold), or 0.
  static int received();
};

/// Keeps the handlers for the rest of the process, for its owner (the command line): a run's
/// StopSignals then restores them rather than the default, so a stop signal that comes once the
/// run has ended (its results complete, the process unwinding or finalising MPI) is noted and let
/// go instead of killing the process without a word. A third still ends it at once. A signal that
/// comes between the hold and the run's start is the run's: it stops in its set-up.
void hold_stop_signals_until_exit();

/// "SIGTERM" for SIGTERM, and so on.
const char* signal_name(int signal);

} // namespace decgpe::runner
