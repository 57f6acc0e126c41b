// `rankone test-plugin LIB`: the conformance checks (rankone/conformance) on the plugins of one
// library, in supervised child processes. The parent never loads LIB: a child (`rankone
// test-plugin-child`) loads it and runs the checks of one plugin after another, announcing each
// before it runs it; a child that crashes, aborts, exits or outlives the check's time limit costs
// the check it was in (a failure with that cause and its last output), and a fresh child goes on
// with the next plugin.
#include "test_plugin.hpp"

#include <poll.h>

#include <algorithm>
#include <iostream>

#include "isolation.hpp"
#include "rankone/conformance/conformance.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::cli {

namespace {

/// The registrations of `library`, loaded beside the built-in plugins (which its example data and
/// operators may name).
std::vector<const Registration*> plugins_of(Registry& registry, const std::filesystem::path& library) {
  registry.load_default();
  const auto loaded = registry.libraries();
  if (std::find(loaded.begin(), loaded.end(), library) == loaded.end()) registry.load_library(library);
  std::vector<const Registration*> mine;
  for (const Registration* r : registry.all())
    if (r->library == library.string()) mine.push_back(r);
  if (mine.empty()) throw PluginError("test-plugin: " + library.string() + " registers no plugins");
  return mine;
}

Json to_json(const ConformanceCheck& c) {
  return Json{{"plugin", c.plugin}, {"check", c.check}, {"passed", c.passed}, {"detail", c.detail}};
}

/// Where one child stands, as its frames tell it.
struct ChildState {
  std::vector<std::string> plugins;  // every plugin of the library (the first child's list)
  std::size_t plugin = 0;            // the plugin being checked
  std::string check;                 // the check running now ("" between checks)
  double check_started = 0.0;
  bool done = false;
};

}  // namespace

int test_plugin_child(const std::filesystem::path& library, std::size_t first) {
  const int protocol = isolation::protocol_descriptor();
  const auto send = [protocol](const Json& j) { isolation::write_all(protocol, j.dump() + "\n"); };
  try {
    Registry registry;
    const auto plugins = plugins_of(registry, library);
    Json names = Json::array();
    for (const Registration* r : plugins) names.push_back(r->name);
    send(Json{{"plugins", names}});
    for (std::size_t i = first; i < plugins.size(); ++i) {
      send(Json{{"plugin", i}});
      check_plugin(registry, *plugins[i], ConformanceObserver{[&](const std::string& check) { send(Json{{"begin", check}}); },
                                                              [&](const ConformanceCheck& c) { send(Json{{"check", to_json(c)}}); }});
    }
    send(Json{{"done", true}});
    return 0;
  } catch (const InputError& e) {
    send(Json{{"input_error", e.what()}});
    return 2;
  } catch (const std::exception& e) {
    send(Json{{"runtime_error", e.what()}});
    return 1;
  }
}

int test_plugin(const std::filesystem::path& library, double check_seconds, std::ostream& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(library, ec))
    throw UsageError("test-plugin: " + library.string() + " is not a file (expected a plugin library, e.g. build/libmy_plugin.so)");
  const std::filesystem::path canonical = std::filesystem::canonical(library);
  std::size_t checks = 0, failures = 0, cut_short = 0;
  ChildState state;
  const auto print = [&](const ConformanceCheck& c) {
    ConformanceReport one;
    one.checks.push_back(c);
    out << one << std::flush;
    ++checks;
    if (!c.passed) ++failures;
  };
  for (std::size_t first = 0;;) {
    isolation::Child child =
        isolation::spawn_rankone(isolation::current_executable(), {"test-plugin-child", canonical.string(), std::to_string(first)});
    std::string frames, output;
    std::string stopped;  // why the child was stopped, or ""
    // Reads what the child wrote and acts on its frames; false once its protocol has ended.
    const auto drain = [&] {
      const std::size_t before = output.size();
      isolation::read_available(child.output, output);
      std::cerr.write(output.data() + before, static_cast<std::streamsize>(output.size() - before));
      isolation::keep_tail(output);
      const bool open = isolation::read_available(child.from_child, frames);
      for (std::size_t newline; stopped.empty() && (newline = frames.find('\n')) != std::string::npos;) {
        const Json j = Json::parse(frames.substr(0, newline), nullptr, false);
        frames.erase(0, newline + 1);
        if (!j.is_object()) {
          stopped = "wrote to its protocol descriptor what is not a frame (a plugin writing to it?)";
        } else if (j.contains("input_error")) {
          throw InputError(j["input_error"].get<std::string>());
        } else if (j.contains("runtime_error")) {
          throw std::runtime_error(j["runtime_error"].get<std::string>());
        } else if (j.contains("plugins")) {
          state.plugins = j["plugins"].get<std::vector<std::string>>();
        } else if (j.contains("plugin")) {
          state.plugin = std::min(j["plugin"].get<std::size_t>(), state.plugins.size() - 1);
        } else if (j.contains("begin")) {
          state.check = j["begin"].get<std::string>();
          state.check_started = isolation::now_seconds();
        } else if (j.contains("check")) {
          const Json& c = j["check"];
          print(ConformanceCheck{c.value("plugin", ""), c.value("check", ""), c.value("passed", false), c.value("detail", "")});
          state.check.clear();
        } else if (j.contains("done")) {
          state.done = true;
        }
      }
      if (frames.size() > (1u << 20)) stopped = "wrote a frame of over 1 MiB to its protocol descriptor";
      return open;
    };
    while (!state.done && stopped.empty()) {
      std::vector<pollfd> fds{{child.from_child, POLLIN, 0}, {child.output, POLLIN, 0}};
      ::poll(fds.data(), fds.size(), isolation::kWatchMilliseconds);
      const bool open = drain();
      if (state.done || !stopped.empty()) break;
      if (child.exited() || !open) {  // its exit, not its pipes': a child it forked may hold them
        child.exits_within(1.0);
        drain();  // what it wrote before it went
        break;
      }
      if (!state.check.empty() && isolation::now_seconds() - state.check_started > check_seconds)
        stopped = "was stopped: the check took more than its time limit of " + isolation::format_seconds(check_seconds) +
                  " (--check-seconds)";
    }
    const int status = child.end();
    if (state.done) break;
    const std::string cause = !stopped.empty() ? stopped : isolation::exit_cause(status, "the check");
    const auto tail = isolation::last_lines(output, 1);
    const std::string last = tail.empty() ? "" : "; last output: " + tail.back();
    if (state.plugins.empty()) {  // it ended while loading the library
      out << "FAIL " << canonical.string() << ": loads: the checking process " << cause << last << "\n";
      ++checks;
      ++failures;
      break;
    }
    const std::string& plugin = state.plugins[state.plugin];
    print(ConformanceCheck{plugin, state.check.empty() ? "(between checks)" : state.check, false,
                           "the check's process " + cause + last});
    out << "     " << plugin << ": its remaining checks were not run\n";
    ++cut_short;
    state.check.clear();
    first = state.plugin + 1;
    if (first >= state.plugins.size()) break;
  }
  const std::size_t plugins = state.plugins.size();
  out << library.string() << ": " << plugins << (plugins == 1 ? " plugin, " : " plugins, ") << checks << " checks, "
      << failures << " failed";
  if (cut_short > 0) out << ", " << cut_short << " cut short (a crash, an exit or the time limit ended the checking process)";
  out << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace rankone::cli
