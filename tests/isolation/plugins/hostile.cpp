// A plugin that misbehaves on purpose, in one of the ways a user's plugin can: the isolation tests
// run it beside healthy estimators and check that each misbehaviour costs only its own trial.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <memory>
#include <stdexcept>
#include <vector>

#include "rankone/plugin/plugin_api.hpp"
#include "rankone/rankone.hpp"

// Declared, never defined anywhere: calling it makes the dynamic loader fail at the call (lazy
// binding), as a plugin built against a library that is missing at run time does.
extern "C" void rankone_test_symbol_that_does_not_exist();

namespace {

using namespace rankone;

class Hostile final : public Estimator {
 public:
  explicit Hostile(const Params& p) : behaviour_(p.string("behaviour")) {
    if (p.string("when") == "constructed") misbehave();
  }
  void start(DataSource&, Rng&) override {}
  bool step(DataSource& data) override {
    data.next(10);
    misbehave();
    summary_.status = Status::converged;
    summary_.message = "behaved";
    summary_.iterations = 1;
    return false;
  }
  Estimate estimate() const override { return Estimate{}; }
  Summary summary() const override { return summary_; }

 private:
  void misbehave() const {
    std::fprintf(stderr, "hostile: about to %s\n", behaviour_.c_str());
    if (behaviour_ == "segfault") std::raise(SIGSEGV);
    if (behaviour_ == "abort") std::abort();
    if (behaviour_ == "exit") std::exit(0);
    if (behaviour_ == "hang")
      while (true) ::pause();
    if (behaviour_ == "throw_int") throw 42;
    if (behaviour_ == "fork_and_crash") {  // a child that keeps every descriptor of the host, then a crash
      const pid_t child = ::fork();
      if (child == 0)
        while (true) ::pause();
      std::fprintf(stderr, "hostile: child %d\n", static_cast<int>(child));
      std::raise(SIGSEGV);
    }
    if (behaviour_ == "write_to_pipes" || behaviour_ == "flood_pipes") {
      // Into every pipe the process holds past stdio, as a plugin scribbling on a stray descriptor:
      // a line of text, or 200 MiB without a newline.
      const std::string block = behaviour_ == "write_to_pipes" ? std::string("{\"oops\": 1}\n") : std::string(1 << 20, 'x');
      const int blocks = behaviour_ == "write_to_pipes" ? 1 : 200;
      for (int fd = 3; fd < 1024; ++fd) {
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
        for (int b = 0; b < blocks; ++b)
          if (::write(fd, block.data(), block.size()) < 0) break;
      }
      while (true) ::pause();  // what it wrote is what must end the trial
    }
    if (behaviour_ == "unresolved_symbol") rankone_test_symbol_that_does_not_exist();
    if (behaviour_ == "huge_allocation") {
      std::vector<double> v(std::size_t{1} << 44);  // 128 TiB: the allocation itself fails
      v[0] = 1.0;
    }
    if (behaviour_ == "runaway_allocation") {
      // Grows and touches memory until the memory limit stops it (never past 8 GiB here).
      std::vector<std::unique_ptr<char[]>> blocks;
      for (int i = 0; i < 128; ++i) {
        blocks.emplace_back(new char[64 << 20]);
        std::memset(blocks.back().get(), 1, 64 << 20);
        ::usleep(20000);
      }
      throw std::runtime_error("runaway_allocation was not stopped by the memory limit");
    }
  }
  std::string behaviour_;
  Summary summary_;
};

Registration hostile(const std::string& name, const std::string& behaviour, const std::string& when) {
  Registration r;
  r.kind = Kind::estimator;
  r.name = name;
  r.summary = "misbehaves on purpose (isolation tests)";
  r.schema.choice("behaviour", behaviour,
                  {"none", "segfault", "abort", "exit", "hang", "throw_int", "unresolved_symbol", "huge_allocation",
                   "runaway_allocation", "fork_and_crash", "write_to_pipes", "flood_pipes"},
                  "how it misbehaves");
  r.schema.choice("when", when, {"step", "constructed"}, "in its first step, or as it is constructed");
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<Hostile>(p); };
  return r;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.registrations.push_back(hostile("hostile", "segfault", "step"));
  // One per misbehaviour in its defaults, for `rankone test-plugin` (which runs each example).
  for (const char* b : {"abort", "exit", "hang", "unresolved_symbol"}) d.registrations.push_back(hostile(std::string("hostile_") + b, b, "step"));
  d.registrations.push_back(hostile("hostile_constructor", "segfault", "constructed"));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe)
