#include "runner/stop_signals.hpp"

#include <array>
#include <csignal>
#include <unistd.h>

namespace decgpe::runner {

namespace {

volatile std::sig_atomic_t g_received = 0;
volatile std::sig_atomic_t g_count = 0;
bool g_held = false; // hold_stop_signals_until_exit() was called

constexpr std::array kStopSignals = {SIGINT, SIGTERM, SIGUSR1, SIGHUP};
std::array<struct sigaction, kStopSignals.size()> g_previous{};

/// Writes a literal to stderr from a signal handler (write(2) is async-signal-safe).
template <std::size_t N> void say(const char (&text)[N]) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, N - 1);
}

/// The first signal stops the run at its next step boundary; a second says so and lets the stop
/// finish its checkpoint; a third ends the process at once (the last complete checkpoint stays,
/// and the next run on the same target removes the temporary it may leave).
extern "C" void note_signal(int signal) {
  if (g_received == 0) {
    g_received = signal;
  }
  g_count = g_count + 1;
  if (g_count == 2) {
    say("decgpe: a second stop signal: the run still stops at its next step boundary and writes "
        "its checkpoint (in its set-up, at once, writing nothing); a third signal ends it at "
        "once\n");
  } else if (g_count >= 3) {
    say("decgpe: a third stop signal: ended at once; the last complete checkpoint stays\n");
    ::_exit(128 + signal);
  }
}

/// Installs note_signal for every stop signal, the dispositions found into `previous` if given.
void install(std::array<struct sigaction, kStopSignals.size()>* previous) {
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal : kStopSignals) { // one handler at a time: the count stays exact
    sigaddset(&action.sa_mask, signal);
  }
  action.sa_flags = SA_RESTART;
  for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
    sigaction(kStopSignals[k], &action, previous != nullptr ? &(*previous)[k] : nullptr);
  }
}

} // namespace

StopSignals::StopSignals() {
  if (!g_held) { // held, a signal noted before the run started still counts
    g_received = 0;
    g_count = 0;
  }
  install(&g_previous);
}

StopSignals::~StopSignals() {
  for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
    sigaction(kStopSignals[k], &g_previous[k], nullptr);
  }
}

void hold_stop_signals_until_exit() {
  g_held = true;
  install(nullptr);
}

int StopSignals::received() {
  return g_received;
}

const char* signal_name(int signal) {
  switch (signal) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGUSR1:
    return "SIGUSR1";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a signal";
  }
}

} // namespace decgpe::runner
