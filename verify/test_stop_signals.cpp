// The stop signals' handlers (runner/stop_signals.hpp), each case in a forked child (a death test),
// so that a signal meant to kill takes the child and not the test binary.

#include "runner/stop_signals.hpp"

#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>

namespace {

using decgpe::runner::hold_stop_signals_until_exit;
using decgpe::runner::StopSignals;

/// Exits 0 when the process noted `signal` as the first stop signal, else 1.
[[noreturn]] void exit_whether_noted(int signal) {
  std::exit(StopSignals::received() == signal ? 0 : 1);
}

TEST(StopSignals, ARunNotesAStopSignalInsteadOfDying) {
  EXPECT_EXIT(
      {
        const StopSignals run;
        std::raise(SIGTERM);
        exit_whether_noted(SIGTERM);
      },
      ::testing::ExitedWithCode(0), "");
}

// Without a hold, a run gives back the dispositions it found: the default then kills.
TEST(StopSignals, ARunRestoresTheDispositionsItFound) {
  EXPECT_EXIT(
      {
        { const StopSignals run; }
        std::raise(SIGTERM);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

// The command line holds the handlers: a signal once the run has ended (here after its
// StopSignals; in CI, a SIGTERM while a run stopped by its time limit was exiting) is noted, and
// the process lives on to exit with the run's status instead of dying without a word.
TEST(StopSignals, ASignalAfterAHeldRunDoesNotKillTheProcess) {
  EXPECT_EXIT(
      {
        hold_stop_signals_until_exit();
        { const StopSignals run; }
        std::raise(SIGINT);
        exit_whether_noted(SIGINT);
      },
      ::testing::ExitedWithCode(0), "");
}

// A signal between the hold and the run's start (before its StopSignals) is the run's:
// it stops in its set-up instead of being forgotten.
TEST(StopSignals, ASignalBeforeAHeldRunStartsIsTheRuns) {
  EXPECT_EXIT(
      {
        hold_stop_signals_until_exit();
        std::raise(SIGHUP);
        const StopSignals run;
        exit_whether_noted(SIGHUP);
      },
      ::testing::ExitedWithCode(0), "");
}

} // namespace
