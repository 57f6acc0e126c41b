#pragma once
// Shared helpers for the test suite: the registry of built plugins, and paths.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rankone/rankone.hpp"
#include "rankone/store/results_store.hpp"

namespace rankone::test {

/// The registry with every plugin of this build loaded (once per test process).
inline const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

/// Creates a plugin of a given kind from a JSON reference, validating it as an experiment would.
template <class T>
std::unique_ptr<T> make(const Json& ref, Kind kind) {
  ValidationContext ctx(registry(), [](const std::string&) { return std::string("test"); });
  Json resolved = validate_plugin_ref(ref, kind, ctx, "");
  return registry().create<T>(resolved, kind, "");
}

/// An estimator run to its end on a freshly opened source, step by step, as a trial runs it.
struct SteppedRun {
  Estimate start_estimate;            ///< after `start`
  std::vector<double> fits;           ///< summary().fit after each step
  std::vector<Estimate> estimates;    ///< after each step that did not end in divergence
  Summary summary;
  Estimate final_estimate;
};

/// Opens `source_ref` with `seed`, starts `estimator_ref` with a seed derived from it, and steps it
/// until it stops, recording what `SteppedRun` holds.
inline SteppedRun run_stepwise(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  auto data = make<DataSource>(source_ref, Kind::data_source);
  data->open(seed);
  auto estimator = make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(seed, "estimator"));
  estimator->start(*data, rng);
  SteppedRun r;
  r.start_estimate = estimator->estimate();
  bool more = estimator->summary().status == Status::running;
  while (more) {
    more = estimator->step(*data);
    r.fits.push_back(estimator->summary().fit);
    if (estimator->summary().status != Status::diverged) r.estimates.push_back(estimator->estimate());
  }
  r.summary = estimator->summary();
  r.final_estimate = estimator->estimate();
  return r;
}

/// ‖M̂ − M*‖_F / ‖M*‖_F.
inline double relative_error(const Estimate& e, const GroundTruth& truth) {
  return difference_norms(e, &truth).frobenius / difference_norms(truth, nullptr).frobenius;
}

/// Runs `estimator` to its end on `source_ref` opened with `seed`; returns it with its source.
struct FinishedRun {
  std::unique_ptr<DataSource> data;
  std::unique_ptr<Estimator> estimator;
};
inline FinishedRun run_to_end(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  FinishedRun r{make<DataSource>(source_ref, Kind::data_source), make<Estimator>(estimator_ref, Kind::estimator)};
  r.data->open(seed);
  Rng rng(derive_seed(seed, "estimator"));
  r.estimator->start(*r.data, rng);
  while (r.estimator->step(*r.data)) {
  }
  return r;
}

inline std::filesystem::path source_dir() {
  const char* s = std::getenv("RANKONE_SOURCE_DIR");
  return s ? std::filesystem::path(s) : std::filesystem::path(RANKONE_TEST_SOURCE_DIR);
}
inline std::filesystem::path binary_dir() {
  const char* s = std::getenv("RANKONE_BINARY_DIR");
  return s ? std::filesystem::path(s) : std::filesystem::path(RANKONE_TEST_BINARY_DIR);
}

/// What a shell command printed (stdout, and stderr unless dropped) and its exit code.
struct CommandOutput {
  int code = -1;
  std::string text;
};

/// Runs a shell command and captures its output.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.text.append(buf, n);
  const int status = pclose(p);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

/// The rankone CLI of this build.
inline std::string rankone_binary() { return (binary_dir() / "bin" / "rankone").string(); }

/// Runs `rankone ARGS`; stderr is merged into the text unless `stdout_only`.
inline CommandOutput rankone_cli(const std::string& args, bool stdout_only = false) {
  return run_command(rankone_binary() + " " + args + (stdout_only ? " 2>/dev/null" : " 2>&1"));
}

/// A scratch folder for files a test writes, removed afterwards.
class ScratchDir {
 public:
  // The process id keeps test executables that CTest runs in parallel out of each other's way.
  explicit ScratchDir(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() / ("rankone_test_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }
  /// Writes a file in the folder and returns its path.
  std::filesystem::path write(const std::string& file, const std::string& text) const {
    std::ofstream(dir_ / file) << text;
    return dir_ / file;
  }

 private:
  std::filesystem::path dir_;
};

/// Every stored point of a results folder except timings, as sorted text rows: two runs of the same
/// study compare equal exactly when their results are bit-identical.
inline std::vector<std::string> rows_without_seconds(const std::filesystem::path& results) {
  ResultsStore store(results);
  std::vector<std::string> rows;
  for (const auto& t : store.trials(true))
    for (const auto& p : t.points) {
      if (p.metric == "seconds") continue;
      std::ostringstream os;
      os.precision(17);
      os << t.key << "|" << t.status << "|" << p.iteration << "|" << p.samples << "|" << p.metric << "|" << p.value;
      rows.push_back(os.str());
    }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace rankone::test
