// Interrupt handling: a flag the run loops poll, and an immediate exit on a second Ctrl-C.
#include "signals.hpp"

#include <unistd.h>

#include <csignal>

namespace rankone::signals {

namespace {

volatile std::sig_atomic_t stop_signal = 0;

void on_signal(int sig) {
  if (stop_signal != 0) {
    if (sig == SIGINT) ::_exit(128 + SIGINT);  // the second Ctrl-C: the user will not wait
    return;
  }
  stop_signal = sig;
  constexpr char kMessage[] = "\nrankone: stopping: no new trials; Ctrl-C again to quit at once\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

}  // namespace

void stop_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and sees the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void ignore_interrupts() {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
}

int requested_stop() { return stop_signal; }

}  // namespace rankone::signals
