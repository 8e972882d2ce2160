#include "runner/stop_signals.hpp"

#include <array>
#include <csignal>

namespace decgpe::runner {

namespace {

volatile std::sig_atomic_t g_received = 0;

constexpr std::array kStopSignals = {SIGINT, SIGTERM, SIGUSR1, SIGHUP};
std::array<struct sigaction, kStopSignals.size()> g_previous{};

extern "C" void note_signal(int signal) {
  if (g_received == 0) {
    g_received = signal;
  }
}

} // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART; // the second one is not caught
  for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
    sigaction(kStopSignals[k], &action, &g_previous[k]);
  }
}

StopSignals::~StopSignals() {
  for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
    sigaction(kStopSignals[k], &g_previous[k], nullptr);
  }
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
