// Trial isolation: hosts started by exec, each in a process group of its own, limits watched by the supervisor.
#include "isolation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <utility>
#include <fstream>
#include <iostream>
#include <string_view>

#include "rankone/core/errors.hpp"
#include "rankone/interfaces/estimator.hpp"

extern char** environ;

namespace rankone::isolation {

namespace {

/// Lines of a dead trial's output kept with its record, and the bytes kept to find them.
constexpr std::size_t kStderrTailLines = 20;
constexpr std::size_t kOutputTailBytes = 1 << 16;

/// The protocol's frames from the host: "rankone-reply BYTES\n" and a reply of that many bytes
/// of JSON, or a heartbeat. Bytes a plugin writes to the descriptor by accident are not a frame,
/// and the announced length bounds what the supervisor buffers.
constexpr std::string_view kReplyTag = "rankone-reply ";
constexpr std::string_view kBeat = "rankone-beat\n";
/// A host beats at most this often (a beat per step would cost a system call per step).
constexpr double kBeatSeconds = 0.25;
/// The descriptor the host replies on is at least this number, away from the ones plugins use.
constexpr int kProtocolDescriptor = 64;

[[noreturn]] void system_failure(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* description = strsignal(sig);
  return (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig)) +
         (description ? " (" + std::string(description) + ")" : "");
}

}  // namespace

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return false;
      system_failure("trial isolation: cannot write to a pipe");
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool read_available(int fd, std::string& into) {
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return false;
  }
}

void keep_tail(std::string& output) {
  if (output.size() > 2 * kOutputTailBytes) output.erase(0, output.size() - kOutputTailBytes);
}

std::vector<std::string> last_lines(const std::string& text, std::size_t n) {
  std::deque<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty()) {
      lines.push_back(std::move(line));
      if (lines.size() > n) lines.pop_front();
    }
    start = end + 1;
  }
  return {lines.begin(), lines.end()};
}

std::string exit_cause(int status, const std::string& work) {
  if (status == -1) return "ended (its status is lost)";
  if (WIFSIGNALED(status)) return "was killed by " + signal_text(WTERMSIG(status));
  if (WIFEXITED(status))
    return "exited with code " + std::to_string(WEXITSTATUS(status)) + " before " + work + " finished" +
           (WEXITSTATUS(status) == 0 ? " (a plugin called exit()?)" : "");
  return "ended in an unknown way (wait status " + std::to_string(status) + ")";
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

int protocol_descriptor() {
  const int protocol = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, kProtocolDescriptor);
  if (protocol < 0) system_failure("cannot move the protocol to a descriptor of its own");
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return protocol;
}

Child spawn_rankone(const std::filesystem::path& executable, const std::vector<std::string>& args) {
  ::signal(SIGPIPE, SIG_IGN);  // a child that dies must not take its supervisor with it
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    system_failure("cannot create pipes to a child process");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  // A process group of its own: the terminal's Ctrl-C reaches the supervisor, which decides, and
  // the child ends with everything it started.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const std::string exe = executable.string();
  std::vector<std::string> words{"rankone"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  Child c;
  const int rc = ::posix_spawn(&c.pid, exe.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  for (int fd : {in[0], out[1], err[1]}) ::close(fd);
  if (rc != 0) {
    c.pid = -1;
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    errno = rc;
    system_failure("cannot start " + exe + " " + (args.empty() ? "" : args[0]));
  }
  c.to_child = in[1];
  c.from_child = out[0];
  c.output = err[0];
  set_nonblocking(c.from_child);
  set_nonblocking(c.output);
  return c;
}

Child::Child(Child&& o) noexcept { *this = std::move(o); }

Child& Child::operator=(Child&& o) noexcept {
  if (this != &o) {
    end();
    pid = std::exchange(o.pid, -1);
    to_child = std::exchange(o.to_child, -1);
    from_child = std::exchange(o.from_child, -1);
    output = std::exchange(o.output, -1);
  }
  return *this;
}

Child::~Child() { end(); }

bool Child::exited() const {
  siginfo_t info{};
  return pid > 0 && ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

bool Child::exits_within(double seconds) const {
  for (const double until = now_seconds() + seconds; !exited(); ::usleep(10000))
    if (now_seconds() > until) return false;
  return true;
}

int Child::end(::rusage* usage) {
  int status = -1;
  if (pid > 0) {
    // The group first: the child is reaped only after, so its pid (the group's id) is not reused.
    ::kill(-pid, SIGKILL);
    rusage ignored{};
    while (::wait4(pid, &status, 0, usage ? usage : &ignored) < 0 && errno == EINTR) {
    }
    pid = -1;
  }
  for (int* fd : {&to_child, &from_child, &output})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  return status;
}

namespace {
/// Resident memory of a process in MiB, from /proc (0 when it is gone).
double resident_mb(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  long pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0.0;
  return static_cast<double>(pages_resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

std::string format_mb(double mb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", mb);
  return buf;
}


/// The host's own peak resident memory since the last reset, in MiB (VmHWM).
double own_peak_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0.0;
}

/// Resets the peak-memory mark, so that the next VmHWM is the next trial's own.
void reset_own_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

}  // namespace

std::int64_t default_memory_limit_mb(int concurrent_trials) {
  const double pages = static_cast<double>(::sysconf(_SC_PHYS_PAGES));
  const double total_mb = pages * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
  return static_cast<std::int64_t>(0.9 * total_mb / std::max(1, concurrent_trials));
}

int trial_host_main() {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the host ends with the process that started it
  // The protocol keeps the original stdout, on a high descriptor that programs a plugin starts do
  // not inherit; whatever plugins print on stdout joins stderr.
  const int protocol = protocol_descriptor();
  auto reply = [protocol](const Json& j) {
    const std::string text = j.dump();
    write_all(protocol, std::string(kReplyTag) + std::to_string(text.size()) + "\n" + text);
  };
  double last_beat = -kBeatSeconds;
  const auto beat = [&](int /*iteration*/) {
    if (const double t = now_seconds(); t - last_beat >= kBeatSeconds) {
      last_beat = t;
      write_all(protocol, std::string(kBeat));
    }
  };
  std::string line;
  if (!std::getline(std::cin, line)) return 0;
  Registry registry;
  try {
    const Json config = Json::parse(line);
    registry.load_default();
    for (const auto& p : config.at("plugin_paths")) registry.load_path(p.get<std::string>());
  } catch (const InputError& e) {
    reply(Json{{"input_error", e.what()}});
    return 2;
  } catch (const std::exception& e) {
    reply(Json{{"runtime_error", std::string("trial host: ") + e.what()}});
    return 1;
  }
  while (std::getline(std::cin, line)) {
    Json answer;
    try {
      const TrialSpec spec = trial_spec_from_json(Json::parse(line).at("trial"));
      reset_own_peak();
      last_beat = -kBeatSeconds;
      TrialRecord rec = run_trial(spec, registry, beat);
      rec.diagnostics["peak_memory_mb"] = own_peak_mb();
      answer = Json{{"record", trial_to_json(rec)}};
    } catch (const ConfigError& e) {  // the supervisor names the experiment file
      answer = Json{{"config_error", e.what()}};
    } catch (const InputError& e) {
      answer = Json{{"input_error", e.what()}};
    } catch (const std::exception& e) {
      answer = Json{{"runtime_error", std::string("trial host: ") + e.what()}};
    }
    std::cout.flush();
    std::fflush(nullptr);
    reply(answer);
  }
  return 0;
}

// ---- the supervisor side -------------------------------------------------------------------

std::filesystem::path current_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

TrialHost::TrialHost(const std::filesystem::path& executable, const HostConfig& config)
    : config_(config), host_(spawn_rankone(executable, {"trial-host"})) {
  Json paths = Json::array();
  for (const auto& p : config.plugin_paths) paths.push_back(p.string());
  write_all(host_.to_child, Json{{"plugin_paths", paths}}.dump() + "\n");
}

void TrialHost::send(const TrialSpec& spec) {
  in_flight_ = spec;
  output_.clear();
  started_ = now_seconds();
  last_beat_ = started_;
  peak_seen_mb_ = 0.0;
  // A host that died meanwhile cannot be written to; advance() then finds it gone and says why.
  write_all(host_.to_child, Json{{"trial", trial_spec_to_json(spec)}}.dump() + "\n");
}

void TrialHost::add_poll_fds(std::vector<pollfd>& fds) const {
  fds.push_back({host_.from_child, POLLIN, 0});
  fds.push_back({host_.output, POLLIN, 0});
}

HostReply TrialHost::ended(const std::string& limit_reason) {
  read_available(host_.output, output_);  // whatever it printed last
  rusage usage{};
  const int status = host_.end(&usage);
  const std::string cause = limit_reason.empty() ? exit_cause(status, "the trial") : limit_reason;
  HostReply r;
  r.host_ended = true;
  if (!in_flight_) {
    r.kind = HostReply::Kind::runtime_error;
    r.message = "trial host " + cause;
    return r;
  }
  // The host's peak since its reset before this trial (the kernel keeps it past the reset).
  const double peak_mb = std::max(peak_seen_mb_, static_cast<double>(usage.ru_maxrss) / 1024.0);
  const auto tail = last_lines(output_, kStderrTailLines);
  r.kind = HostReply::Kind::record;
  r.record = unfinished_record(*in_flight_);
  r.record.status = to_string(Status::failed);
  r.record.message = "the trial's process " + cause + (tail.empty() ? "" : "; last output: " + tail.back());
  r.record.diagnostics["cause"] = cause;
  r.record.diagnostics["peak_memory_mb"] = peak_mb;
  if (!tail.empty()) r.record.diagnostics["stderr_tail"] = tail;
  in_flight_.reset();
  return r;
}

std::optional<HostReply> TrialHost::take_frames() {
  while (!replies_.empty()) {
    const std::string_view front(replies_);
    if (front.substr(0, kBeat.size()) == kBeat) {
      last_beat_ = now_seconds();
      replies_.erase(0, kBeat.size());
      continue;
    }
    const auto prefix_of = [&](std::string_view frame) { return front.size() < frame.size() && frame.substr(0, front.size()) == front; };
    if (prefix_of(kBeat) || prefix_of(kReplyTag)) return std::nullopt;  // the rest is on its way
    if (front.substr(0, kReplyTag.size()) != kReplyTag) {
      std::string shown;
      for (const char c : front.substr(0, 60)) shown += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
      return ended("wrote to its reply descriptor what is not a reply ('" + shown + "'; a plugin writing to it?)");
    }
    const std::size_t newline = front.find('\n');
    const std::string_view digits = front.substr(kReplyTag.size(), newline == std::string_view::npos ? std::string_view::npos : newline - kReplyTag.size());
    if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string_view::npos || (newline != std::string_view::npos && digits.empty()))
      return ended("sent a malformed reply header on its reply descriptor");
    if (newline == std::string_view::npos) return std::nullopt;
    const std::uint64_t bytes = std::stoull(std::string(digits));
    if (bytes > max_reply_bytes())
      return ended("announced a reply of " + std::to_string(bytes) + " bytes, over the bound of " +
                    std::to_string(max_reply_bytes()) + " (four times the trial's memory limit)");
    const std::size_t frame = newline + 1 + bytes;
    if (replies_.size() < frame) {
      replies_.reserve(frame);  // exactly the reply: no doubling past it
      return std::nullopt;
    }
    const Json j = Json::parse(replies_.begin() + static_cast<std::ptrdiff_t>(newline + 1),
                               replies_.begin() + static_cast<std::ptrdiff_t>(frame), nullptr, false);
    replies_.erase(0, frame);
    if (j.is_discarded() || !j.is_object()) return ended("sent a reply that is not a JSON object");
    HostReply r;
    try {
      if (j.contains("record")) {
        r.record = trial_from_json(j["record"]);
      } else if (j.contains("config_error")) {
        r.kind = HostReply::Kind::config_error;
        r.message = j["config_error"].get<std::string>();
      } else if (j.contains("input_error")) {
        r.kind = HostReply::Kind::input_error;
        r.message = j["input_error"].get<std::string>();
      } else if (j.contains("runtime_error")) {
        r.kind = HostReply::Kind::runtime_error;
        r.message = j["runtime_error"].get<std::string>();
      } else {
        return ended("sent a reply of no known kind");
      }
    } catch (const std::exception& e) {
      return ended(std::string("sent a malformed reply (") + e.what() + ")");
    }
    in_flight_.reset();
    return r;
  }
  return std::nullopt;
}

std::uint64_t TrialHost::max_reply_bytes() const {
  constexpr std::uint64_t kMiB = 1 << 20;
  return config_.limits.memory_mb ? std::max<std::uint64_t>(64 * kMiB, 4 * kMiB * static_cast<std::uint64_t>(*config_.limits.memory_mb))
                                  : std::uint64_t{4} << 30;
}

std::optional<HostReply> TrialHost::advance() {
  // What the trial prints still reaches the user, as it did in one process.
  const std::size_t before = output_.size();
  read_available(host_.output, output_);
  if (output_.size() > before) {
    std::cerr.write(output_.data() + before, static_cast<std::streamsize>(output_.size() - before));
    std::cerr.flush();
    keep_tail(output_);
  }
  const bool open = read_available(host_.from_child, replies_);
  if (auto r = take_frames()) return r;
  // The host's exit, not its pipes' end: a child it forked may hold them open.
  const bool exited = open ? host_.exited() : host_.exits_within(1.0);
  if (exited || !open) {
    if (open) read_available(host_.from_child, replies_);  // what it wrote before it went
    if (auto r = take_frames()) {
      r->host_ended = true;
      host_.end();
      return r;
    }
    return ended(exited ? "" : "closed its reply descriptor before replying");
  }
  if (!in_flight_) return std::nullopt;
  const double rss = resident_mb(host_.pid);
  peak_seen_mb_ = std::max(peak_seen_mb_, rss);
  const double now = now_seconds();
  std::string limit;
  if (config_.limits.seconds && now - started_ > *config_.limits.seconds)
    limit = "exceeded the wall-time limit of " + format_seconds(*config_.limits.seconds);
  else if (config_.limits.memory_mb && rss > static_cast<double>(*config_.limits.memory_mb))
    limit = "exceeded the memory limit of " + format_mb(static_cast<double>(*config_.limits.memory_mb)) + " (resident " +
            format_mb(rss) + ")";
  else if (config_.limits.stall_seconds && now - last_beat_ > *config_.limits.stall_seconds)
    limit = "made no progress for " + format_seconds(*config_.limits.stall_seconds) +
            ": neither its start nor an iteration finished (the stall limit: --trial-stall or limits.trial_stall_seconds "
            "sets it, none or null lifts it)";
  if (limit.empty()) return std::nullopt;
  return ended("was stopped: it " + limit);
}

HostReply TrialHost::wait_reply() {
  while (true) {
    if (auto r = advance()) return std::move(*r);
    std::vector<pollfd> fds;
    add_poll_fds(fds);
    if (::poll(fds.data(), fds.size(), kWatchMilliseconds) < 0 && errno != EINTR) system_failure("trial isolation: poll");
  }
}

TrialExecutor isolated_executor(int jobs, const HostConfig& config) {
  // The hosts start now, so that they load their plugins while the caller plans and opens the store.
  const std::filesystem::path exe = current_executable();
  auto pool = std::make_shared<std::vector<std::unique_ptr<TrialHost>>>();
  for (int j = 0; j < std::max(1, jobs); ++j) pool->push_back(std::make_unique<TrialHost>(exe, config));
  return [pool, exe, config](const std::vector<const TrialSpec*>& todo, const Registry&, const TrialEvents& events) {
    auto& hosts = *pool;
    const std::size_t slots = hosts.size();
    std::size_t next = 0, running = 0;
      auto dispatch = [&](std::size_t h) {
      if (next >= todo.size() || events.stop_requested()) return;
      if (!hosts[h]) hosts[h] = std::make_unique<TrialHost>(exe, config);
      events.started(*todo[next]);
      hosts[h]->send(*todo[next]);
      ++next;
      ++running;
    };
    for (std::size_t h = 0; h < slots; ++h) dispatch(h);
    while (running > 0) {
      if (events.stop_requested()) break;  // abandon the trials in flight: their hosts end below
      std::vector<pollfd> fds;
      for (const auto& host : hosts)
        if (host && host->busy()) host->add_poll_fds(fds);
      if (::poll(fds.data(), fds.size(), kWatchMilliseconds) < 0 && errno != EINTR) system_failure("trial isolation: poll");
      for (std::size_t h = 0; h < slots; ++h) {
        if (!hosts[h] || !hosts[h]->busy()) continue;
        std::optional<HostReply> reply = hosts[h]->advance();
        if (!reply) continue;
        --running;
        if (reply->kind == HostReply::Kind::config_error) throw ConfigError(reply->message);
        if (reply->kind == HostReply::Kind::input_error) throw InputError(reply->message);
        if (reply->kind == HostReply::Kind::runtime_error) throw std::runtime_error(reply->message);
        if (reply->host_ended) hosts[h].reset();  // a fresh host for the next trial
        events.finished(std::move(reply->record));
        dispatch(h);
      }
    }
    hosts.clear();  // the study is over: end the hosts now, not when the executor is destroyed
  };
}

}  // namespace rankone::isolation
