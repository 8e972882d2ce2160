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

  /// The first signal received since construction, or 0.
  static int received();
};

/// "SIGTERM" for SIGTERM, and so on.
const char* signal_name(int signal);

} // namespace decgpe::runner
