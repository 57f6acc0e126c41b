#pragma once
// SIGINT and SIGTERM during a run: the first asks the run to stop (no new trials; the store is
// closed cleanly and the run marked interrupted), a second SIGINT ends the process at once.
namespace rankone::signals {

/// Installs the handlers for the process that owns a run (or coordinates one under MPI).
void stop_on_interrupt();
/// Makes SIGINT and SIGTERM do nothing (MPI workers: rank 0 decides when they stop).
void ignore_interrupts();
/// The signal that asked the run to stop, or 0.
int requested_stop();

}  // namespace rankone::signals
