#pragma once
// Trial isolation: every trial runs outside the process that owns the store, so that a plugin
// that crashes, aborts, calls exit(), hangs or allocates without bound costs one trial, never the
// study.
//
// The process that owns the store (or an MPI rank) starts trial hosts by exec'ing this rankone
// (`rankone trial-host`; never fork() of a process that may hold MPI or threads). A host loads
// the plugins once and runs the trials it is sent, one at a time. Its supervisor watches each
// trial's wall time and the host's resident memory against the trial's limits, keeps the tail of
// what the trial printed, and when the host dies or is stopped at a limit, records the trial as
// `failed` with the cause (signal, exit code or limit), that tail and the peak memory, and starts
// a fresh host for the next trial. A host resets its peak-memory mark before each trial, so every
// record carries its own peak.
//
// Each host runs in a process group of its own, ended whole with its trial or the study (a
// child a plugin forks does not outlive it); the supervisor watches the host's exit, not its
// pipes. A trial that finishes neither its start nor an iteration for the stall limit (600 s by
// default) is stopped: a hang costs one trial, never the study.
//
// Protocol: to the host (JSON, one object per line), first {"plugin_paths": [...]}, then one
// {"trial": spec} at a time. From the host, on a close-on-exec descriptor of its own, frames:
// "rankone-beat\n" after the start and the steps (at most four a second), and per trial
// "rankone-reply BYTES\n" and a JSON reply of that length: {"record": trial},
// {"config_error": message}, {"input_error": message} or {"runtime_error": message}. Anything
// else there, or a reply over its bound, fails the trial with that cause. The host's stderr (and
// what plugins print on stdout) comes back on a pipe of its own.
#include <poll.h>
#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rankone/runner/runner.hpp"

namespace rankone::isolation {

/// A `rankone` child process in a process group of its own, with pipes to its stdin, from its
/// stdout (the protocol: the child moves it to protocol_descriptor()) and from its stderr.
struct Child {
  int pid = -1;
  int to_child = -1, from_child = -1, output = -1;  // ours are non-blocking but to_child
  Child() = default;
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();  // end()s it
  /// Whether it has exited (it stays a zombie, so its group id cannot be reused, until end()).
  bool exited() const;
  /// Whether it exits within `seconds` (a child that closed its pipes is usually exiting: its
  /// status, not the closing, is then the cause).
  bool exits_within(double seconds) const;
  /// Kills its process group (it and whatever it started), reaps it and closes the pipes; its wait
  /// status (-1 when there was none), and its resource usage into `usage` when given.
  int end(::rusage* usage = nullptr);
};

/// Starts `executable ARGS...` (a rankone) as a Child.
Child spawn_rankone(const std::filesystem::path& executable, const std::vector<std::string>& args);
/// In a child: moves the protocol off stdout to a high close-on-exec descriptor that programs a
/// plugin starts do not inherit, points stdout at stderr, and returns the descriptor.
int protocol_descriptor();
/// Writes all of `text`; false when the reader is gone.
bool write_all(int fd, const std::string& text);
/// Appends what a non-blocking descriptor has; false at its end.
bool read_available(int fd, std::string& into);
/// Keeps the tail of a child's output that a record or a report quotes (bounded memory).
void keep_tail(std::string& output);
/// The last lines of `text`, at most `n`, without empty ones.
std::vector<std::string> last_lines(const std::string& text, std::size_t n);
/// How a child ended, from its wait status: "was killed by SIGSEGV (Segmentation fault)",
/// "exited with code 3 before `work` finished".
std::string exit_cause(int wait_status, const std::string& work);
double now_seconds();
std::string format_seconds(double s);

/// What every host of a study is started with.
struct HostConfig {
  std::vector<std::filesystem::path> plugin_paths;  ///< the experiment's extra plugin libraries
  TrialLimits limits;                               ///< enforced per trial
};

/// The memory limit a trial gets when neither the experiment nor the command line sets one: the
/// machine's physical memory shared by the trials that run at once, less a tenth for the system.
std::int64_t default_memory_limit_mb(int concurrent_trials);

/// One reply of a host.
struct HostReply {
  enum class Kind { record, config_error, input_error, runtime_error } kind = Kind::record;
  TrialRecord record;
  std::string message;
  bool host_ended = false;  ///< the host process is gone (its trial, if any, is in `record`)
};

/// A running `rankone trial-host` process and its watch over the trial in flight.
class TrialHost {
 public:
  TrialHost(const std::filesystem::path& executable, const HostConfig& config);
  TrialHost(const TrialHost&) = delete;
  TrialHost& operator=(const TrialHost&) = delete;

  /// Hands the host one trial (it must be idle).
  void send(const TrialSpec& spec);
  bool busy() const { return in_flight_.has_value(); }
  /// The descriptors to poll while a trial is in flight.
  void add_poll_fds(std::vector<struct pollfd>& fds) const;
  /// Reads what the host wrote and checks the limits; returns the reply once there is one. A host
  /// that died, or was stopped at a limit, answers with a `failed` record for its trial
  /// (`host_ended` is then set: start a new host for the next trial).
  std::optional<HostReply> advance();
  /// Blocks until the reply to the trial in flight.
  HostReply wait_reply();

 private:
  /// Ends the host's process group and answers for the trial in flight with `cause` (or the
  /// host's own end when empty).
  HostReply ended(const std::string& cause);
  /// The frames at the front of what the host wrote: beats feed the stall watch, a whole reply is
  /// returned; bytes that are not a frame, or a reply over max_reply_bytes(), end the host.
  std::optional<HostReply> take_frames();
  std::uint64_t max_reply_bytes() const;
  HostConfig config_;
  Child host_;
  std::string replies_;  // protocol bytes not yet parsed
  std::string output_;   // what the trial in flight printed (its tail)
  std::optional<TrialSpec> in_flight_;
  double started_ = 0.0;       // steady-clock seconds when the trial was sent
  double last_beat_ = 0.0;     // when the trial last finished its start or an iteration
  double peak_seen_mb_ = 0.0;  // the largest resident memory seen during the trial
};

/// How often a supervisor looks at its trials' clocks and memory.
constexpr int kWatchMilliseconds = 20;

/// The executor of `rankone run`: `jobs` hosts, each running one trial at a time.
TrialExecutor isolated_executor(int jobs, const HostConfig& config);

/// `rankone trial-host`: reads the protocol on stdin, replies on stdout. Returns the exit code.
int trial_host_main();

/// The running executable (to start hosts from).
std::filesystem::path current_executable();

}  // namespace rankone::isolation
