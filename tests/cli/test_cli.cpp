// End-to-end: the rankone command as a user runs it, exit codes included.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "rankone/plugin/plugin_api.hpp"
#include "rankone/store/results_store.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

const char* kSmall = R"({
  "name": "small",
  "seed": 3,
  "repetitions": 3,
  "data": {"name": "synthetic", "d": 20, "rank": 2, "w_norm": 1,
           "operator": {"name": "symmetric_rank_one", "first_order": true}},
  "estimators": [{"name": "spectral", "label": "n500", "rank": 2, "batch_size": 500},
                 {"name": "spectral", "label": "n5000", "rank": 2, "batch_size": 5000}],
  "metrics": ["combined_error", "samples"],
  "sweep": {"grid": {"data.d": [15, 20]}}
})";

}  // namespace

TEST_CASE("rankone plugins and describe", "[cli]") {
  const auto list = test::rankone_cli("plugins");
  CHECK(list.code == 0);
  for (const char* name : {"gaussian", "bernoulli", "one_hot", "uniform", "symmetric_rank_one", "asymmetric_rank_one",
                           "entry", "single_label", "synthetic", "spectral", "combined_error", "auc", "hamming_loss"})
    CHECK_THAT(list.text, Catch::Contains(name));
  const auto json = test::rankone_cli("plugins --json");
  CHECK(json.code == 0);
  CHECK(Json::parse(json.text).size() >= 13);

  const auto d = test::rankone_cli("describe spectral");
  CHECK(d.code == 0);
  CHECK_THAT(d.text, Catch::Contains("batch_size"));
  CHECK_THAT(d.text, Catch::Contains("estimator"));
  const auto dj = test::rankone_cli("describe synthetic --json");
  CHECK(dj.code == 0);
  CHECK(Json::parse(dj.text)["parameters"].is_array());

  const auto unknown = test::rankone_cli("describe spectrl");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("did you mean 'spectral'"));
}

TEST_CASE("usage errors exit with code 2", "[cli]") {
  CHECK(test::rankone_cli("").code == 2);
  CHECK(test::rankone_cli("frobnicate").code == 2);
  CHECK(test::rankone_cli("run").code == 2);
  CHECK(test::rankone_cli("run x.json --jobs zero").code == 2);
  CHECK(test::rankone_cli("export /nonexistent/folder").code == 2);
  CHECK(test::rankone_cli("--help").code == 0);
}

TEST_CASE("every command answers --help with its own usage; --version names the build", "[cli]") {
  for (const std::string command : {"run", "plan", "validate", "plugins", "describe", "summarize", "select", "report", "export"}) {
    INFO(command);
    const auto help = test::rankone_cli(command + " --help");
    CHECK(help.code == 0);
    CHECK_THAT(help.text, Catch::StartsWith("usage: rankone " + command));
    std::istringstream lines(help.text);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line))  // no other command's section: its lines start with 2 spaces and a name
      CHECK_FALSE((line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' '));
    CHECK(test::rankone_cli("help " + command).text == help.text);
  }
  CHECK_THAT(test::rankone_cli("run experiments/x.json --help").text, Catch::Contains("--max-memory MB"));
  const auto unknown = test::rankone_cli("frobnicate --help");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("unknown command 'frobnicate'"));
  const auto version = test::rankone_cli("--version");
  CHECK(version.code == 0);
  CHECK_THAT(version.text, Catch::StartsWith("rankone "));
  CHECK_THAT(version.text, Catch::Contains("(plugin API " + std::to_string(kPluginApiVersion) + ")"));
  for (const char* part : {"commit: ", "compiler: ", "flags: ", "libraries: "}) CHECK_THAT(version.text, Catch::Contains(part));
}

TEST_CASE("validate prints the resolved experiment; bad input names file and path", "[cli]") {
  test::ScratchDir s("validate");
  const auto file = s.write("small.json", kSmall);
  const auto ok = test::rankone_cli("validate " + file.string() + " data.d=25", /*stdout_only=*/true);
  REQUIRE(ok.code == 0);
  const Json resolved = Json::parse(ok.text);
  CHECK(resolved["data"]["d"] == 25);
  CHECK(resolved["data"].contains("noise_std"));  // defaults are filled in
  CHECK(resolved["estimators"][0]["label"] == "n500");

  const auto bad = test::rankone_cli("validate " + file.string() + " estimators.1.rank=-1");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.text, Catch::Contains("command line override 'estimators.1.rank=-1': at /estimators/1/rank: expected an integer ≥ 1, found -1"));
  const auto broken = s.write("broken.json", "{\"name\": }");
  const auto syn = test::rankone_cli("validate " + broken.string());
  CHECK(syn.code == 2);
  CHECK_THAT(syn.text, Catch::Contains(broken.string() + ":1:"));
  // A pipe is refused as a file that is not regular, exit 2 (it used to exit 1 with a raw filesystem
  // error: a pipe has no canonical path).
  const auto piped = test::run_command("cat " + file.string() + " | " + test::rankone_binary() + " validate /dev/stdin 2>&1");
  CHECK(piped.code == 2);
  CHECK_THAT(piped.text, Catch::Contains("/dev/stdin: not a regular file (an experiment is a JSON file)"));
}

TEST_CASE("run writes the store, export writes long rows, a rerun skips completed trials", "[cli][store]") {
  test::ScratchDir s("run");
  const auto file = s.write("small.json", kSmall);
  const fs::path out = s.path() / "out";
  const auto first = test::rankone_cli("run " + file.string() + " --out " + out.string() + " --jobs 2");
  REQUIRE(first.code == 0);
  CHECK_THAT(first.text, Catch::Contains("results: " + (out / "results.sqlite").string()));
  CHECK_THAT(first.text, Catch::Contains("12 run now, 0 already complete"));

  const auto csv = test::rankone_cli("export " + out.string() + " --format csv");
  REQUIRE(csv.code == 0);
  std::istringstream lines(csv.text);
  std::string header;
  std::getline(lines, header);
  CHECK(header == "trial,estimator,label,repetition,data.d,status,iteration,samples,seconds,metric,value");
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line);) rows += !line.empty();
  CHECK(rows == 12 * 2);  // one recorded iteration × two metrics per trial

  const auto json = test::rankone_cli("export " + out.string() + " --format json");
  REQUIRE(json.code == 0);
  CHECK(Json::parse(json.text).size() == rows);

  const auto again = test::rankone_cli("run " + file.string() + " --out " + out.string());
  CHECK(again.code == 0);
  CHECK_THAT(again.text, Catch::Contains("0 run now, 12 already complete"));
  const auto plan = test::rankone_cli("plan " + file.string() + " --out " + out.string());
  CHECK_THAT(plan.text, Catch::Contains("12 done, 0 stale, 0 to run"));

  // Provenance of the run is stored with it.
  ResultsStore store(out);
  const Json exp = store.latest_experiment();
  CHECK(exp["data"]["d"] == 20);
  CHECK(exp["sweep"]["grid"]["data.d"] == Json::array({15, 20}));
}

TEST_CASE("an experiment's plugin_paths are loaded, and a bad library there is a clear error", "[cli][plugins]") {
  test::ScratchDir s("plugin_paths");
  const fs::path bad = test::binary_dir() / "tests" / "bad_plugins" / "libbad_fingerprint_mismatch.so";
  const auto file = s.write("p.json", std::string(R"({"plugin_paths": [")") + bad.string() + R"("],
    "data": {"name": "synthetic", "d": 5}, "estimators": ["spectral"], "metrics": ["samples"]})");
  const auto out = test::rankone_cli("validate " + file.string());
  CHECK(out.code == 2);
  CHECK_THAT(out.text, Catch::Contains("build fingerprint mismatch in " + bad.string()));
  // A relative path is taken relative to the experiment file.
  const auto rel = s.write("r.json", R"({"plugin_paths": ["no_such_plugin.so"],
    "data": {"name": "synthetic", "d": 5}, "estimators": ["spectral"], "metrics": ["samples"]})");
  const auto missing = test::rankone_cli("validate " + rel.string());
  CHECK(missing.code == 2);
  CHECK_THAT(missing.text, Catch::Contains("plugin library not found: " + (s.path() / "no_such_plugin.so").string()));
}

TEST_CASE("every plugin error exits with code 2 and says which library, where it was listed and what is wrong",
          "[cli][plugins]") {
  test::ScratchDir s("plugin_errors");
  const fs::path bad_dir = fs::canonical(test::binary_dir() / "tests" / "bad_plugins");
  const fs::path samplers = fs::canonical(test::binary_dir() / "lib" / "rankone" / "plugins" / "librankone_samplers.so");
  const auto with_plugin_path = [](const fs::path& path, const std::string& args) {
    return test::run_command("RANKONE_PLUGIN_PATH='" + path.string() + "' " + test::rankone_binary() + " " + args + " 2>&1");
  };

  const auto dup = with_plugin_path(bad_dir / "libbad_duplicate_name.so", "plugins");
  CHECK(dup.code == 2);
  CHECK_THAT(dup.text, Catch::Contains("rankone: error: RANKONE_PLUGIN_PATH: duplicate plugin name 'gaussian': registered by " +
                                       samplers.string() + " and by " + (bad_dir / "libbad_duplicate_name.so").string()));

  const auto fingerprint = with_plugin_path(bad_dir / "libbad_fingerprint_mismatch.so", "describe spectral");
  CHECK(fingerprint.code == 2);
  CHECK_THAT(fingerprint.text, Catch::Contains("build fingerprint mismatch in " + (bad_dir / "libbad_fingerprint_mismatch.so").string()));
  CHECK_THAT(fingerprint.text, Catch::Contains("library: gcc-abi=0;eigen=2.0.0;built-elsewhere"));
  CHECK_THAT(fingerprint.text, Catch::Contains(std::string("core:    ") + core_build_fingerprint()));

  const auto missing = with_plugin_path(s.path() / "libgone.so", "plugins");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.text, Catch::Contains("RANKONE_PLUGIN_PATH: plugin library not found: " + (s.path() / "libgone.so").string()));

  // A text file with a plugin's name in a folder on the path: the loader's reason, not a crash.
  fs::create_directories(s.path() / "folder");
  s.write("folder/librankone_x.so", "not a shared library: a text file whose name only happens to end in .so\n");
  const auto corrupt = with_plugin_path(s.path() / "folder", "plugins --json");
  CHECK(corrupt.code == 2);
  CHECK_THAT(corrupt.text, Catch::Contains("RANKONE_PLUGIN_PATH: cannot load plugin library " +
                                           (fs::canonical(s.path() / "folder") / "librankone_x.so").string() + ": "));
  CHECK_THAT(corrupt.text, Catch::Contains("invalid ELF header"));

  const auto not_plugin = with_plugin_path(bad_dir / "libbad_not_a_plugin.so", "plugins");
  CHECK(not_plugin.code == 2);
  CHECK_THAT(not_plugin.text, Catch::Contains("libbad_not_a_plugin.so is not a RankOne plugin"));

  // An experiment's plugin_paths: the error names the experiment file and the JSON path too, and
  // nothing is written.
  const auto api_file = s.write("api.json", R"({"plugin_paths": [")" + (bad_dir / "libbad_api_mismatch.so").string() +
                                                R"("], "data": {"name": "synthetic", "d": 5}, "estimators": ["spectral"], "metrics": ["samples"]})");
  const auto api = test::rankone_cli("run " + api_file.string() + " --out " + (s.path() / "out").string());
  CHECK(api.code == 2);
  CHECK_THAT(api.text, Catch::Contains(api_file.string() + ": at /plugin_paths/0: plugin API version mismatch in " +
                                       (bad_dir / "libbad_api_mismatch.so").string() +
                                       ": the library has version 999, this rankone expects " + std::to_string(kPluginApiVersion)));
  CHECK_FALSE(fs::exists(s.path() / "out"));

  // Unknown names and names of the wrong kind, in an experiment.
  const auto names = s.write("names.json", R"({"data": {"name": "synthetic", "d": 5}, "estimators": ["spectrl"], "metrics": ["samples"]})");
  const auto unknown = test::rankone_cli("validate " + names.string());
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains(names.string() + ": at /estimators/0: unknown estimator 'spectrl'; did you mean 'spectral'? "
                                                            "Known estimators: "));
  CHECK_THAT(unknown.text, Catch::Contains("gfm_one_pass"));
  const auto kind = test::rankone_cli("validate " + names.string() + " estimators.0=gaussian");
  CHECK(kind.code == 2);
  CHECK_THAT(kind.text, Catch::Contains("'gaussian' is a sampler, but an estimator is expected here"));
}

TEST_CASE("a progress line on a terminal; none when output is piped or with --quiet", "[cli][progress]") {
  test::ScratchDir s("progress");
  const auto file = s.write("small.json", kSmall);
  const auto run_on_terminal = [&](const std::string& args) {
    // script(1) runs the command on a pseudo-terminal (stdout and stderr) and returns its exit code.
    return test::run_command("script -qec '" + test::rankone_binary() + " " + args + "' /dev/null");
  };
  const auto tty = run_on_terminal("run " + file.string() + " --out " + (s.path() / "tty").string() + " --jobs 1");
  REQUIRE(tty.code == 0);
  CHECK_THAT(tty.text, Catch::Contains("[12/12 trials] done 12, running 0, failed 0, skipped 0 | elapsed "));
  CHECK_THAT(tty.text, Catch::Contains("ETA"));

  const auto piped = test::rankone_cli("run " + file.string() + " --out " + (s.path() / "piped").string() + " --jobs 1");
  REQUIRE(piped.code == 0);
  CHECK_THAT(piped.text, !Catch::Contains("trials]") && !Catch::Contains("ETA"));
  const auto quiet = run_on_terminal("run " + file.string() + " --out " + (s.path() / "quiet").string() + " --quiet");
  REQUIRE(quiet.code == 0);
  CHECK_THAT(quiet.text, !Catch::Contains("run now") && !Catch::Contains("trials]"));  // --quiet: errors only
}

TEST_CASE("summarize aggregates final values per cell, estimator and metric", "[cli][summary]") {
  test::ScratchDir s("summary");
  const auto file = s.write("small.json", kSmall);
  const fs::path out = s.path() / "out";
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + out.string()).code == 0);
  const auto sum = test::rankone_cli("summarize " + out.string() + " --metric combined_error --below 0.3 --format json");
  REQUIRE(sum.code == 0);
  const Json rows = Json::parse(sum.text);
  CHECK(rows.size() == 2 * 2 * 2);  // cells × labels × metrics

  // Recompute one group by hand from the stored trials.
  ResultsStore store(out);
  std::vector<double> finals;
  for (const auto& t : store.trials(true))
    if (t.cell == 1 && t.label == "n500")
      for (const auto& p : t.points)
        if (p.metric == "combined_error") finals.push_back(p.value);
  REQUIRE(finals.size() == 3);
  const double mean = (finals[0] + finals[1] + finals[2]) / 3;
  double ss = 0;
  for (double v : finals) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / 2);
  std::size_t below = 0;
  for (double v : finals) below += v < 0.3;
  bool found = false;
  for (const auto& r : rows) {
    if (r["cell"] != 1 || r["estimator"] != "n500" || r["metric"] != "combined_error") continue;
    found = true;
    CHECK(r["n"] == 3);
    CHECK(r["mean"].get<double>() == Approx(mean).epsilon(1e-12));
    CHECK(r["sd"].get<double>() == Approx(sd).epsilon(1e-12));
    CHECK(r["ci95_high"].get<double>() == Approx(mean + 4.303 * sd / std::sqrt(3.0)).epsilon(1e-9));
    CHECK(r["success_rate"].get<double>() == Approx(below / 3.0));
  }
  CHECK(found);
  CHECK(test::rankone_cli("summarize " + out.string() + " --metric combined_error").code == 2);  // a threshold needs a value
  const auto table = test::rankone_cli("summarize " + out.string());
  CHECK(table.code == 0);
  CHECK_THAT(table.text, Catch::Contains("ci95_low"));
}

TEST_CASE("the quick-start study shows the seed result: one-pass gFM to machine precision, the baselines far off",
          "[cli][quickstart]") {
  test::ScratchDir s("quickstart");
  const fs::path out = s.path() / "out";
  const auto run = test::rankone_cli("run " + (test::source_dir() / "experiments/quickstart.json").string() + " --out " +
                                     out.string() + " --report --quiet");
  INFO(run.text);
  REQUIRE(run.code == 0);
  const auto summary = test::rankone_cli("summarize " + out.string() + " --only combined_error --format json", true);
  REQUIRE(summary.code == 0);
  std::map<std::string, double> median;
  for (const auto& row : Json::parse(summary.text)) median[row["estimator"].get<std::string>()] = row["median"].get<double>();
  REQUIRE(median.size() == 3);  // --only kept the one metric
  CHECK(median.at("one-pass gFM") < 1e-10);
  CHECK(median.at("spectral start") > 1e-2);
  CHECK(median.at("conventional FM") > 0.1);  // its M is PSD: the negative eigen-directions are out of reach
  CHECK(fs::file_size(out / "report.html") > 10000);
  const auto unknown = test::rankone_cli("summarize " + out.string() + " --only combined_eror");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("no trial recorded the metric 'combined_eror'"));
}

TEST_CASE("a failed trial is recorded with its message, the study goes on, and the exit code says so", "[cli][faults]") {
  test::ScratchDir s("faults");
  // Moment elimination refuses two-point designs (τ = 0): status failed. The spectral trials of the
  // same study still run.
  const auto file = s.write("faults.json", R"({
    "name": "faults", "seed": 1, "repetitions": 2,
    "data": {"name": "synthetic", "d": 10, "rank": 1, "sampler": {"name": "bernoulli"}},
    "estimators": [{"name": "fm_moment_elimination", "rank": 1, "batch_size": 2000},
                   {"name": "spectral", "rank": 1, "batch_size": 2000}],
    "metrics": ["combined_error"]})");
  const fs::path out = s.path() / "out";
  const auto result = test::rankone_cli("run " + file.string() + " --out " + out.string());
  CHECK(result.code == 1);
  CHECK_THAT(result.text, Catch::Contains("4 run now, 0 already complete, 2 failed or diverged"));
  CHECK_THAT(result.text, Catch::Contains("tau = min_j"));
  std::size_t failed = 0, converged = 0;
  for (const auto& t : ResultsStore(out).trials(false)) {
    if (t.label == "fm_moment_elimination") {
      CHECK(t.status == "failed");
      CHECK_THAT(t.message, Catch::Contains("is below tau_threshold"));
      ++failed;
    } else {
      CHECK(t.status == "converged");
      ++converged;
    }
  }
  CHECK(failed == 2);
  CHECK(converged == 2);
}

TEST_CASE("results do not depend on the number of threads", "[cli][determinism]") {
  test::ScratchDir s("jobs");
  const auto file = s.write("small.json", kSmall);
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s.path() / "j1").string() + " --jobs 1").code == 0);
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s.path() / "j2").string() + " --jobs 2").code == 0);
  const auto a = test::rows_without_seconds(s.path() / "j1");
  CHECK(a.size() == 24);
  CHECK(a == test::rows_without_seconds(s.path() / "j2"));
}

TEST_CASE("a study under mpirun gives the serial results", "[cli][mpi]") {
  test::ScratchDir s("mpi");
  const auto file = s.write("small.json", kSmall);
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s.path() / "serial").string() + " --jobs 1").code == 0);
  for (int ranks : {2, 3}) {
    const fs::path out = s.path() / ("mpi" + std::to_string(ranks));
    const auto mpi = test::run_command("mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " " +
                                       test::rankone_binary() + " run " + file.string() + " --out " + out.string() + " 2>&1");
    INFO(mpi.text);
    REQUIRE(mpi.code == 0);
    const std::string& text = mpi.text;
    CHECK_THAT(text, Catch::Contains("12 run now"));
    // Only rank 0 reports: one summary means the ranks shared one study, not ran a copy each.
    CHECK(text.find("results: ") == text.rfind("results: "));
    CHECK(test::rows_without_seconds(out) == test::rows_without_seconds(s.path() / "serial"));
  }
}

TEST_CASE("a run killed with SIGKILL resumes: every trial exactly once, nothing lost", "[cli][resume]") {
  test::ScratchDir s("resume");
  // Enough trials that the kill lands mid-run.
  const auto file = s.write("study.json", R"({
    "name": "study", "seed": 5, "repetitions": 30,
    "data": {"name": "synthetic", "d": 60, "rank": 2},
    "estimators": [{"name": "spectral", "rank": 2, "batch_size": 100000}],
    "metrics": ["combined_error"]
  })");
  const fs::path killed = s.path() / "killed";
  const fs::path clean = s.path() / "clean";
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + clean.string() + " --jobs 1").code == 0);

  // Kill the study several times at pseudo-random moments (start-up, mid-trial, mid-write), each
  // time resuming into the same folder.
  auto start_study = [&] {
    const pid_t pid = fork();
    if (pid == 0) {
      const int devnull = ::open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execl(test::rankone_binary().c_str(), "rankone", "run", file.c_str(), "--out", killed.c_str(), "--jobs", "2", nullptr);
      _exit(127);
    }
    return pid;
  };
  Rng rng(20261121);
  std::size_t before = 0;
  for (int round = 0; round < 4; ++round) {
    const pid_t pid = start_study();
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + rng.below(400)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (ResultsStore::exists(killed)) {
      const std::size_t now = ResultsStore(killed).completed().size();  // the store stays readable
      CHECK(now >= before);
      before = now;
    }
  }
  CHECK(before < 30);  // the kills landed before the end

  const auto resumed = test::rankone_cli("run " + file.string() + " --out " + killed.string());
  REQUIRE(resumed.code == 0);
  CHECK_THAT(resumed.text, Catch::Contains(std::to_string(30 - before) + " run now, " + std::to_string(before) + " already complete"));
  CHECK(ResultsStore(killed).trials(false).size() == 30);  // every trial exactly once
  CHECK(test::rows_without_seconds(killed) == test::rows_without_seconds(clean));
}
