// Peak memory of a one-pass gFM run against the stream's length (docs/PERFORMANCE.md): the same
// run (d = 1000, k = 2, batches of 10 000 from a synthetic Gaussian stream, one pass until the
// source runs out) on 10⁵ and on 10⁷ samples, each in a fresh child process whose peak resident
// set (getrusage ru_maxrss) is read by the parent. A streaming estimator holds O(d·k) state and one
// batch (d × n doubles = 80 MB here), so both peaks should be alike; one that kept the stream would
// grow 100 ×.
//
//   build/bin/bench_memory [--samples N ...] [--json FILE]
// Not a Google Benchmark suite (nothing is timed); benchmarks/run calls it and checks the target.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench_support.hpp"

using namespace rankone;

namespace {

constexpr Index kD = 1000;
constexpr Index kRank = 2;
constexpr Index kBatch = 10000;

/// One whole one-pass run over `samples` samples; returns the iterations done.
int one_pass_run(Index samples) {
  auto source = bench::make<DataSource>(
      Json{{"name", "synthetic"}, {"d", kD}, {"rank", kRank}, {"size", samples}, {"operator", "symmetric_rank_one"}},
      Kind::data_source);
  source->open(1);
  auto estimator = bench::make<Estimator>(Json{{"name", "gfm_one_pass"},
                                               {"rank", kRank},
                                               {"batch_size", kBatch},
                                               {"max_iterations", 1000000},
                                               {"tolerance", 0.0}},
                                          Kind::estimator);
  Rng rng(2);
  estimator->start(*source, rng);
  int iterations = 0;
  while (estimator->step(*source)) ++iterations;
  return iterations;
}

/// Runs `one_pass_run(samples)` in a child process and returns the child's resource usage: its
/// peak RSS, and its page faults and kernel time (what allocating fresh batches would cost).
rusage child_usage(Index samples) {
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(1);
  }
  if (pid == 0) {
    const int iterations = one_pass_run(samples);
    std::fprintf(stderr, "  %lld samples: %d iterations\n", static_cast<long long>(samples), iterations);
    std::_Exit(0);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_memory: the run over %lld samples failed\n", static_cast<long long>(samples));
    std::exit(1);
  }
  return usage;
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<Index> samples;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--samples" && i + 1 < argc) {
      samples.push_back(std::stoll(argv[++i]));
    } else if (arg == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::cerr << "usage: bench_memory [--samples N ...] [--json FILE]\n";
      return 2;
    }
  }
  if (samples.empty()) samples = {100000, 10000000};
  Json out{{"d", kD}, {"rank", kRank}, {"batch_size", kBatch}, {"runs", Json::array()}};
  for (Index n : samples) {
    const rusage usage = child_usage(n);
    const long kib = usage.ru_maxrss;
    const double user = seconds(usage.ru_utime), system = seconds(usage.ru_stime);
    std::printf("one-pass run, %lld samples: peak RSS %.1f MiB, %ld page faults, kernel %.2f s of %.2f s CPU\n",
                static_cast<long long>(n), kib / 1024.0, usage.ru_minflt + usage.ru_majflt, system, user + system);
    std::fflush(stdout);
    out["runs"].push_back(Json{{"samples", n},
                               {"peak_rss_kib", kib},
                               {"page_faults", usage.ru_minflt + usage.ru_majflt},
                               {"user_seconds", user},
                               {"system_seconds", system}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
