#pragma once
// Distributed trials over MPI ranks (Boost.MPI over Open MPI): rank 0 owns the results store and
// hands out trials one at a time as ranks ask for work; every rank composes the same plan.
#include <memory>

#include "isolation.hpp"
#include "rankone/runner/runner.hpp"

namespace rankone::mpi {

/// True when this process was started by mpirun with more than one rank.
bool launched_with_several_ranks();

class Session;
TrialExecutor coordinator(const Session& session, const Plan& plan);
void worker(const Session& session, const Plan& plan, const Registry& registry, const isolation::HostConfig* hosts);

/// Initialises MPI for the process lifetime (call once, before anything else uses MPI).
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  int rank() const;
  int size() const;
  /// Ends every rank of the job with exit code `code` (MPI_Abort): a rank that stops on an error
  /// must not leave the others waiting for messages that never come.
  [[noreturn]] void abort(int code) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend TrialExecutor coordinator(const Session& session, const Plan& plan);
  friend void worker(const Session& session, const Plan& plan, const Registry& registry,
                     const isolation::HostConfig* hosts);
};

/// Rank 0's executor: dispatches the trials to ranks 1..size-1 and collects their records.
TrialExecutor coordinator(const Session& session, const Plan& plan);
/// Ranks ≥ 1: run the trials rank 0 sends until told to stop, each in a process of their own
/// through one trial host started by exec (fork() after MPI_Init is unsafe), or in this process
/// when `hosts` is null (--in-process).
void worker(const Session& session, const Plan& plan, const Registry& registry, const isolation::HostConfig* hosts);

}  // namespace rankone::mpi
